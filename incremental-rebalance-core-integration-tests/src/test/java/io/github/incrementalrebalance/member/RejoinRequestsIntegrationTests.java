package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.RestoreThrottle;
import io.github.incrementalrebalance.testkit.RestoredRecords;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A drain with a heartbeat far longer than the tests' usual 500 ms (5 s; session 45 s): each of its
 * rebalances would wait for the other members' next heartbeat, and under exactly-once hold every task's output
 * meanwhile. Members that ask each other to rejoin over the control topic make a round cost what the cluster needs,
 * not a heartbeat; the same drain with the requests off shows the difference side by side.
 */
@Tag(TestTags.BROKER)
class RejoinRequestsIntegrationTests {

	private static final int PARTITIONS = 6;

	/** A twentieth of the state per task: a move that restores it cold fails the bound. */
	private static final long ACCEPTABLE_LAG = 500;

	private static final int KEYS_PER_TASK = 10_000;

	private static final long RESTORE_RATE = 5_000;

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@Test
	void drainAtAFiveSecondHeartbeatStallsItsMovedTasksUnderTwoSecondsWhenMembersAskEachOtherToRejoin() {
		Drained asked = drain("rejoin-asked", "conservative", true, RESTORE_RATE);
		Drained heartbeats = drain("rejoin-heartbeats", "conservative", false, RESTORE_RATE);
		System.out.printf("Conservative drain at a 5 s heartbeat: moved tasks stalled %d ms with rejoin requests, "
				+ "%d ms waiting for heartbeats; the other tasks %d ms and %d ms; rebalances of a survivor %d and %d%n",
				asked.moved().toMillis(), heartbeats.moved().toMillis(), asked.others().toMillis(),
				heartbeats.others().toMillis(), asked.rebalances(), heartbeats.rebalances());
		assertThat(asked.moved()).as("moved tasks' stall with rejoin requests").isLessThan(Duration.ofSeconds(2));
		assertThat(heartbeats.moved()).as("a heartbeat-driven rejoin cannot do it").isGreaterThan(asked.moved());
		// the two survivors' learners may get ready at different moments: asked at once, each is a round of its own
		// (a tenth of a second), where waiting for heartbeats happens to merge them; no more than that
		assertThat(asked.rebalances()).as("at most one round more than waiting for heartbeats, for the second survivor")
			.isLessThanOrEqualTo(heartbeats.rebalances() + 1);
	}

	/**
	 * An eager drain moves the leaving member's tasks one at a time, each through the cooperative protocol's two
	 * rounds: the owner's revoke, then the round in which the learner takes the task, which the owner starts by
	 * rejoining at once and the others would join only at their next heartbeat. c restores at a quarter of a's rate,
	 * so that a's learner is ready seconds before c's and its task moves alone.
	 */
	@Test
	void eagerDrainAtAFiveSecondHeartbeatHandsEachTaskOverInTheRoundAfterItsRevoke() {
		Drained eager = drain("rejoin-eager", "eager", true, RESTORE_RATE / 4);
		System.out.printf("Eager drain at a 5 s heartbeat: moved tasks stalled %d ms, the other tasks %d ms, "
				+ "rebalances of a survivor %d%n", eager.moved().toMillis(), eager.others().toMillis(),
				eager.rebalances());
		assertThat(eager.moved()).as("moved tasks' stall, each revoked and taken in the next round")
			.isLessThan(Duration.ofSeconds(2));
		assertThat(eager.others()).as("the other tasks' stall").isLessThan(Duration.ofSeconds(2));
	}

	/**
	 * A scale-up at a 5 s heartbeat: the new member's join starts a round the others would join at their next
	 * heartbeat (before its learners are even placed), and each task it takes is revoked from its owner in one round
	 * and taken in the next. Announced, both cost what the cluster needs.
	 */
	@Test
	void scaleUpAtAFiveSecondHeartbeatPlacesLearnersAtOnceAndMovesTasksUnderTwoSeconds() {
		String applicationId = "rejoin-scale-up";
		CountingApplication run = new CountingApplication(broker, applicationId, PARTITIONS);
		try (TrackingProducer producer = run.producer();
				StreamsLauncher launcher = launcher(run, applicationId, "conservative", true)) {
			StreamsInstance a = start(launcher, "a", RESTORE_RATE);
			StreamsInstance b = start(launcher, "b", RESTORE_RATE);
			run.loadAndSettle(producer, KEYS_PER_TASK, a, b);
			Instant startedAt = Instant.now();

			StreamsInstance c = start(launcher, "c", RESTORE_RATE);

			await("c's learners placed").atMost(Duration.ofMinutes(1)).until(() -> !c.standbyTasks().isEmpty());
			Duration untilLearners = Duration.between(startedAt, Instant.now());
			await("c runs its share").atMost(Duration.ofMinutes(2))
				.until(() -> StreamsInstance.allRunning(a, b, c) && c.activeTasks().size() == PARTITIONS / 3
						&& run.gapMeter().allProcessedSince(c.activeTasks(), Instant.now().minusMillis(300)));
			Instant done = Instant.now();
			Set<TaskId> moved = c.activeTasks();
			Duration stall = run.gapMeter().longestGap(moved, startedAt, done);
			System.out.printf("Scale-up at a 5 s heartbeat: c's learners placed %d ms after its start, moved tasks "
					+ "stalled %d ms, rebalances of a %d%n", untilLearners.toMillis(), stall.toMillis(),
					a.rebalancesSince(startedAt));
			assertThat(untilLearners).as("the others joined c's first round at once").isLessThan(Duration.ofSeconds(2));
			assertThat(stall).as("moved tasks' stall, revoked and taken in the next round")
				.isLessThan(Duration.ofSeconds(2));
			RestoredRecords.assertRestoredAtPromotionAtMost(ACCEPTABLE_LAG, moved, c.restoredRecords());
			run.verifyCounts(producer);
		}
	}

	private StreamsLauncher launcher(CountingApplication run, String applicationId, String mode,
			boolean rejoinRequests) {
		return run.launcher(this.stateRoot.resolve(applicationId))
			.property(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2)
			.property(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, ACCEPTABLE_LAG)
			.property(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 5_000)
			.property(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 45_000)
			.property(LearnerConfig.DRAIN_HAND_OVER_CONFIG, mode)
			.property(LearnerConfig.LEARNER_PROBE_INTERVAL_MS_CONFIG, Duration.ofMinutes(5).toMillis())
			.property(LearnerConfig.REJOIN_REQUESTS_CONFIG, rejoinRequests);
	}

	private Drained drain(String applicationId, String mode, boolean rejoinRequests, long restoreRateOfC) {
		CountingApplication run = new CountingApplication(broker, applicationId, PARTITIONS);
		try (TrackingProducer producer = run.producer();
				StreamsLauncher launcher = launcher(run, applicationId, mode, rejoinRequests)) {
			StreamsInstance a = start(launcher, "a", RESTORE_RATE);
			StreamsInstance b = start(launcher, "b", RESTORE_RATE);
			StreamsInstance c = start(launcher, "c", restoreRateOfC);
			run.loadAndSettle(producer, KEYS_PER_TASK, a, b, c);
			Set<TaskId> ofB = b.activeTasks();
			Set<TaskId> others = new HashSet<>(StreamsInstance.activeTasksOf(a, c));
			Instant askedAt = Instant.now();

			assertThat(b.runtime().leave(Optional.empty(), "test")).isTrue();

			await("b drained and closed").atMost(Duration.ofMinutes(2))
				.until(() -> b.runtime().state() == MemberState.CLOSED);
			await("a and c run every task").atMost(Duration.ofMinutes(1))
				.until(() -> StreamsInstance.allRunning(a, c)
						&& StreamsInstance.activeTasksOf(a, c).size() == PARTITIONS
						&& run.gapMeter().allProcessedSince(ofB, Instant.now().minusMillis(300)));
			Instant done = Instant.now();
			assertThat(b.runtime().drainOutcome()).as("how b's leave ended")
				.hasValueSatisfying((outcome) -> assertThat(outcome.kind()).isEqualTo(DrainOutcome.Kind.DRAINED))
				.hasValueSatisfying((outcome) -> assertThat(outcome.tasksMovedCold()).isZero());
			RestoredRecords.assertRestoredAtPromotionAtMost(ACCEPTABLE_LAG, ofB, a.restoredRecords(), c.restoredRecords());
			Drained drained = new Drained(run.gapMeter().longestGap(ofB, askedAt, done),
					run.gapMeter().longestGap(others, askedAt, done), a.rebalancesSince(askedAt));
			run.verifyCounts(producer);
			return drained;
		}
	}

	private static StreamsInstance start(StreamsLauncher launcher, String name, long restoreRate) {
		RestoreThrottle throttle = RestoreThrottle.of(restoreRate);
		return launcher.instance(name)
			.restoreThrottle(throttle)
			.memberRuntime()
			.start();
	}

	/**
	 * What a drain cost.
	 *
	 * @param moved the longest stall of the leaving member's tasks
	 * @param others the longest stall of the tasks that stayed where they were
	 * @param rebalances rebalances a survivor went through
	 */
	private record Drained(Duration moved, Duration others, long rebalances) {
	}

}
