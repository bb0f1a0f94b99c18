package io.github.incrementalrebalance.assignor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.incrementalrebalance.testkit.RoundSimulator;
import io.github.incrementalrebalance.testkit.RoundSimulator.Round;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A round without the changelogs' end offsets moves no stateful task and asks for another round soon. Every round it
 * asks for rebalances the whole group: while rounds in a row go without them (a cluster that does not answer for
 * them, a missing ACL) the leader asks less and less often, up to the learner probe interval, and soon again once a
 * round had them.
 */
class UnknownOffsetsRetryTests {

	@Test
	void roundsInARowWithoutEndOffsetsAskForTheNextLessAndLessOftenUpToTheProbeInterval() {
		RoundSimulator sim = new RoundSimulator().statefulTasks(4, 1_000)
			.running("a", 1, new TaskId(0, 0), new TaskId(0, 1))
			.running("b", 1, new TaskId(0, 2), new TaskId(0, 3));
		sim.rebalance();

		List<Duration> retries = new ArrayList<>();
		for (int round = 0; round < 5; round++) {
			retries.add(followUpOf(sim, sim.unknownOffsetsNextRound().rebalance()));
		}
		assertThat(retries).containsExactly(Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(20),
				Duration.ofSeconds(30), Duration.ofSeconds(30));

		assertThat(sim.rebalance().plan().unknownOffsets()).isFalse();
		assertThat(followUpOf(sim, sim.unknownOffsetsNextRound().rebalance())).as("a new fault: soon again")
			.isEqualTo(Duration.ofSeconds(5));
	}

	private static Duration followUpOf(RoundSimulator sim, Round round) {
		assertThat(round.plan().unknownOffsets()).isTrue();
		return Duration.between(sim.now(), round.plan().followUp().orElseThrow());
	}

}
