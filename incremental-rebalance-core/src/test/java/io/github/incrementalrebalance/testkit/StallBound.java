package io.github.incrementalrebalance.testkit;

import java.time.Duration;

/**
 * How long a hand-over may stall a task in a test. On a quiet machine ({@code -Dtestkit.quiet=true}, CI's timing
 * stage) the bound the project publishes. Under the build's parallel test JVMs on two cores a drain of four busy
 * threads took up to three times as long (2.9 s where alone it takes 0.7 s), as long as a round that waited for a
 * heartbeat, so there the bound is the group's session timeout: no task waited for a member's session to expire.
 */
public final class StallBound {

	/** Set by the CI stage that runs the {@link TestTags#TIMING} tests with nothing else on the machine. */
	static final String QUIET = "testkit.quiet";

	private StallBound() {
	}

	/**
	 * The bound of this run.
	 * @param published the bound on a quiet machine
	 * @param session the group's session timeout
	 * @return {@code published} on a quiet machine, else {@code session}
	 */
	public static Duration of(Duration published, Duration session) {
		return Boolean.getBoolean(QUIET) ? published : session;
	}

}
