package io.github.incrementalrebalance.autoconfigure;

import java.util.stream.Collectors;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a start refused for keys the starter does not know: each key, where it was set, and the key meant.
 */
final class UnknownKeysFailureAnalyzer extends AbstractFailureAnalyzer<UnknownKeysException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, UnknownKeysException cause) {
		String keys = cause.unknown()
			.stream()
			.map((key) -> "    " + key.describe())
			.collect(Collectors.joining(System.lineSeparator()));
		return new FailureAnalysis("incremental-rebalance does not know these keys, which Spring would ignore:"
				+ System.lineSeparator() + keys,
				"Set the keys named instead (docs/reference.md lists every key), or remove them; "
						+ "incremental-rebalance.fail-on-unknown-keys=false reports them at WARN and starts.",
				cause);
	}

}
