package io.github.incrementalrebalance.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Says which Spring Boot the starter needs, and the ways out, in place of a stack trace.
 */
final class UnsupportedSpringBootFailureAnalyzer extends AbstractFailureAnalyzer<UnsupportedSpringBootException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, UnsupportedSpringBootException cause) {
		return new FailureAnalysis("incremental-rebalance-starter runs on " + SpringBootLineCheck.SUPPORTED_LINES
				+ " (spring-kafka of the same line); this application runs Spring Boot " + cause.version()
				+ ", whose modules would be mixed with Spring Boot 4's on its class path.",
				"Upgrade the application to " + SpringBootLineCheck.SUPPORTED_LINES + ", or remove "
						+ "incremental-rebalance-starter. Spring Boot 3 is not supported (see the supported stacks in the "
						+ "project's documentation).",
				cause);
	}

}
