package io.github.incrementalrebalance.chaos;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ChaosReportTests {

	@Test
	void aRunThatDrewFromSomeKindsOnlySaysWhichInItsSummaryAndReport() {
		ChaosReport some = ChaosReport.of(settings(Set.of(ChaosEvent.SLOW_CALL_DURING_LEAVE, ChaosEvent.LEAVE)),
				List.of(), 0, 0, 0);
		assertThat(some.kinds()).containsExactly("leave", "slow-call-during-leave");
		assertThat(some.summary()).contains("heartbeat/session ms=500/6000 kinds=[leave, slow-call-during-leave] ");
		ChaosReport every = ChaosReport.of(settings(Set.of()), List.of(), 0, 0, 0);
		assertThat(every.kinds()).isEmpty();
		assertThat(every.summary()).doesNotContain("kinds=");
	}

	private static ChaosSettings settings(Set<ChaosEvent> kinds) {
		return new ChaosSettings(1, 7L, 3, 1_000, 1_000, 10, Duration.ofMinutes(1), true, Duration.ofMillis(500),
				Duration.ofSeconds(6), 1, kinds);
	}

}
