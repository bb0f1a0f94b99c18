package io.github.incrementalrebalance.cli;

import java.time.Duration;
import java.util.Optional;

import picocli.CommandLine.Option;

/**
 * What a leave asked from the command line may say of itself: how long its learners may take, and whether it may
 * leave no member of the last plan behind.
 */
final class LeaveOptions {

	@Option(names = "--timeout", paramLabel = "DURATION", converter = DurationConverter.class,
			description = "How long each may wait for its learners before it leaves anyway (90s, 5m, 1h, PT5M). "
					+ "Default: the instance's drain timeout.")
	Duration timeout;

	@Option(names = "--force", description = "Leave even when no member of the last plan would stay.")
	boolean force;

	/**
	 * @return the leaves' own drain timeout, empty for each instance's
	 */
	Optional<Duration> timeout() {
		return Optional.ofNullable(this.timeout);
	}

}
