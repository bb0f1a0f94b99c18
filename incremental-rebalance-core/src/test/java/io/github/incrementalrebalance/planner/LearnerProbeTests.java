package io.github.incrementalrebalance.planner;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.testkit.RoundSimulator;
import io.github.incrementalrebalance.testkit.RoundSimulator.Round;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.AssignmentError;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The leader's follow-up while learners exist is a safety net: a learner's member asks for the round that moves it.
 * Every round rebalances the whole group, so while rounds in a row change nothing the leader probes less often: the
 * probe interval (30 s), doubling up to eight times it. Here no member asks (the simulator has none to), so only the
 * probes drive a drain whose learners need five minutes.
 */
class LearnerProbeTests {

	private static final long STATE = 1_000_000;

	/** Five minutes for a learner to restore its task's state. */
	private static final long RESTORE_RATE = STATE / 300;

	private static final Duration PROBE = Duration.ofSeconds(30);

	@Test
	void aLongDrainIsProbedLessAndLessOftenAndStillHandsOverOnceItsLearnersAreReady() {
		RoundSimulator sim = new RoundSimulator().kafkaSettings(10_000, 2, 0)
			.learnerSetting(LearnerConfig.LEARNER_PROBE_INTERVAL_MS_CONFIG, PROBE.toMillis())
			.statefulTasks(5, STATE)
			.running("S1", 1, new TaskId(0, 0), new TaskId(0, 1))
			.running("S2", 1, new TaskId(0, 2), new TaskId(0, 3))
			.running("S3", 1, new TaskId(0, 4))
			.restoreRate("S1", RESTORE_RATE)
			.restoreRate("S3", RESTORE_RATE);
		sim.requestsLeave("S2", Optional.empty());
		Instant asked = sim.now();

		Round round = valid(sim.rebalance());
		List<Long> probes = new ArrayList<>();
		while (round.plan().member("S2").orElseThrow().handOver().isEmpty()) {
			Duration probe = Duration.between(sim.now(), round.plan().followUp().orElseThrow());
			probes.add(probe.toSeconds());
			sim.advance(probe);
			round = valid(sim.rebalance());
		}

		Duration drain = Duration.between(asked, sim.now());
		System.out.printf("A five-minute drain probed by the leader alone: %d rounds in %d s, probes after %s s (at a "
				+ "fixed 30 s probe: 11 rounds in 300 s)%n", sim.rounds().size(), drain.toSeconds(), probes);
		assertThat(probes).as("doubling while nothing changes, at most eight intervals")
			.isSorted()
			.allSatisfy((seconds) -> assertThat(seconds).isBetween(PROBE.toSeconds(), 8 * PROBE.toSeconds()));
		assertThat(sim.rounds()).as("half the rounds of a fixed probe, or fewer").hasSizeLessThanOrEqualTo(6);
		assertThat(drain).as("ready after 300 s; handed over at the next probe")
			.isBetween(Duration.ofSeconds(300), Duration.ofSeconds(300).plus(PROBE.multipliedBy(8)));
	}

	private static Round valid(Round round) {
		assertThat(round.error()).isEqualTo(AssignmentError.NONE);
		assertThat(round.plan()).as("the learner plan, not the fallback").isNotNull();
		return round;
	}

}
