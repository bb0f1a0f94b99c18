package io.github.incrementalrebalance.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the drain on shutdown says at start about the time Spring's shutdown phase leaves it.
 */
class DrainOnShutdownTests {

	@Test
	void aDrainTimeoutThatFitsTheShutdownPhaseLessTheCloseAllowanceIsNotWarnedOf() {
		DrainOnShutdown drain = new DrainOnShutdown(new MemberRuntimes(), Duration.ofSeconds(20));

		assertThat(drain.cutShort("a", Duration.ofSeconds(15))).isEmpty();
		assertThat(drain.cutShort("a", DrainOnShutdown.DEFAULT_BOUND)).as("the default bound in the default phase")
			.isEmpty();
	}

	@Test
	void aDrainTimeoutLongerThanTheShutdownPhaseAllowsIsSaidWithWhatToSet() {
		DrainOnShutdown drain = new DrainOnShutdown(new MemberRuntimes(), Duration.ofSeconds(20));

		assertThat(drain.cutShort("a", Duration.ofMinutes(2))).hasValueSatisfying((message) -> assertThat(message)
			.startsWith("A drain on shutdown of a may take PT15S, not its drain timeout of PT2M")
			.contains("Spring waits at most PT20S (spring.lifecycle.timeout-per-shutdown-phase)")
			.contains("set spring.lifecycle.timeout-per-shutdown-phase to at least PT2M5S")
			.contains("terminationGracePeriodSeconds"));
	}

	@Test
	void aShutdownPhaseNoLongerThanTheCloseAllowanceLeavesNoTimeToDrain() {
		DrainOnShutdown drain = new DrainOnShutdown(new MemberRuntimes(), Duration.ofSeconds(3));

		assertThat(drain.cutShort("a", Duration.ofSeconds(1))).hasValueSatisfying(
				(message) -> assertThat(message).startsWith("A drain on shutdown of a may take PT0S"));
	}

}
