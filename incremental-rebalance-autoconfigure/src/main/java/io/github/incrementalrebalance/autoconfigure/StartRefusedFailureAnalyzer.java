package io.github.incrementalrebalance.autoconfigure;

import io.github.incrementalrebalance.config.StartRefusedException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a start-up that incremental-rebalance refused (an assignor of the application's own in mode incremental,
 * a {@code group.protocol} Kafka Streams does not have): what was refused and why, and what to set instead, in place
 * of a bean creation stack trace.
 */
final class StartRefusedFailureAnalyzer extends AbstractFailureAnalyzer<StartRefusedException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, StartRefusedException cause) {
		return new FailureAnalysis("incremental-rebalance cannot run this Kafka Streams application with "
				+ cause.setting() + ": " + cause.why() + ".",
				"Set instead: " + cause.accepted() + ". Kafka Streams settings go under spring.kafka.streams.properties "
						+ "(or the StreamsBuilderFactoryBean's own configuration); incremental-rebalance.enabled=false "
						+ "runs the application without incremental-rebalance.",
				cause);
	}

}
