package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.GapMeter;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.RestoreThrottle;
import io.github.incrementalrebalance.testkit.RestoredRecords;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One application of a drain scenario test ({@link DrainScenariosIntegrationTests},
 * {@link LeaveWithoutLearnersIntegrationTests}), with their drain settings: exactly-once, restores that the tests
 * throttle per instance so learners warm up as slowly as each needs, and the assignor's safety-net follow-up at 5
 * minutes, so that moves come from the members' own triggers.
 */
final class DrainScenarioGroup {

	static final int PARTITIONS = 4;

	/** A twentieth of the state per task: a move that restores it cold fails the bound. */
	static final long ACCEPTABLE_LAG = 500;

	static final int KEYS_PER_TASK = 10_000;

	private final CountingApplication application;

	private final Path stateRoot;

	private final String learnerRebalance;

	/**
	 * @param broker the broker
	 * @param stateRoot where the test keeps its instances' state
	 * @param applicationId the application id, one per test
	 * @param learnerRebalance {@code eager} or {@code conservative}
	 */
	DrainScenarioGroup(KafkaBroker broker, Path stateRoot, String applicationId, String learnerRebalance) {
		this.application = new CountingApplication(broker, applicationId, PARTITIONS);
		this.stateRoot = stateRoot;
		this.learnerRebalance = learnerRebalance;
	}

	TrackingProducer producer() {
		return this.application.producer();
	}

	GapMeter gapMeter() {
		return this.application.gapMeter();
	}

	StreamsLauncher launcher() {
		return this.application
			.launcher(this.stateRoot.resolve(this.application.applicationId()))
			.property(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2)
			.property(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, ACCEPTABLE_LAG)
			.property(LearnerConfig.DRAIN_HAND_OVER_CONFIG, this.learnerRebalance)
			.property(LearnerConfig.LEARNER_PROBE_INTERVAL_MS_CONFIG, Duration.ofMinutes(5).toMillis())
			// start-up moves leave task directories behind; cleaned, they do not attract the learners
			.property(StreamsConfig.STATE_CLEANUP_DELAY_MS_CONFIG, 1_000L);
	}

	/**
	 * Starts a member for each throttle and gives every task its state.
	 * @return the members, in the order of the throttles
	 */
	List<StreamsInstance> settledMembers(StreamsLauncher launcher, TrackingProducer producer,
			Map<String, RestoreThrottle> throttles) {
		List<StreamsInstance> members = throttles.entrySet().stream()
			.map((entry) -> member(launcher, entry.getKey(), entry.getValue()))
			.toList();
		loadAndSettle(producer, members.toArray(StreamsInstance[]::new));
		return members;
	}

	/**
	 * Member a on Kafka's own assignor, started first so that it leads: it publishes no learner plan.
	 */
	StreamsInstance upgradingLeader(StreamsLauncher launcher) {
		return launcher.instance("a")
			.property(LearnerConfig.REBALANCING_MODE_CONFIG, "upgrading")
			.memberRuntime()
			.start()
			.awaitRunning();
	}

	StreamsInstance member(StreamsLauncher launcher, String name, RestoreThrottle throttle) {
		return launcher.instance(name)
			.restoreThrottle(throttle)
			.memberRuntime()
			.start();
	}

	void loadAndSettle(TrackingProducer producer, StreamsInstance... instances) {
		loadAndSettle(producer, KEYS_PER_TASK, instances);
	}

	void loadAndSettle(TrackingProducer producer, int keysPerTask, StreamsInstance... instances) {
		this.application.loadAndSettle(producer, keysPerTask, instances);
	}

	void verifyCounts(TrackingProducer producer) {
		this.application.verifyCounts(producer);
	}

	/**
	 * One throttle for each of a, b and c, in that order.
	 */
	static Map<String, RestoreThrottle> throttles(long recordsPerSecond) {
		Map<String, RestoreThrottle> throttles = new LinkedHashMap<>();
		for (String name : List.of("a", "b", "c")) {
			throttles.put(name, RestoreThrottle.of(recordsPerSecond));
		}
		return throttles;
	}

	/**
	 * Wait until the leader acknowledged a member's leave and placed its learners.
	 * @param leaver the member asked to leave
	 * @param members every member, the leaver included
	 * @param bound how long to wait
	 */
	static void awaitLeaveAcknowledged(StreamsInstance leaver, List<StreamsInstance> members, Duration bound) {
		await("the leader acknowledged the leave and placed its learners").atMost(bound)
			.until(() -> leaver.plan().map((plan) -> plan.leaving() && !plan.beingLearned().isEmpty()).orElse(false)
					&& members.stream()
						.anyMatch((member) -> member.plan().map((plan) -> !plan.learning().isEmpty()).orElse(false)));
	}

	/**
	 * The leaver handed over to ready learners, nothing of its state restored at promotion, every other member
	 * running its tasks, counts exact.
	 * @param leaver the member asked to leave
	 * @param moving the tasks it ran when asked
	 * @param members every member, the leaver included
	 * @param producer the producer of this application's input
	 */
	void assertHandedOverWarm(StreamsInstance leaver, Set<TaskId> moving, List<StreamsInstance> members,
			TrackingProducer producer) {
		await("the leaver drained").atMost(Duration.ofMinutes(2))
			.until(() -> leaver.runtime().state() == MemberState.CLOSED);
		assertThat(leaver.runtime().drainOutcome()).as("every task went to a ready learner")
			.contains(DrainOutcome.of(DrainOutcome.Reason.LEARNERS_READY, 0));
		StreamsInstance[] stayers = members.stream().filter((member) -> member != leaver).toArray(StreamsInstance[]::new);
		await("the leaver's tasks running on the others").atMost(Duration.ofMinutes(1))
			.until(() -> StreamsInstance.allRunning(stayers) && StreamsInstance.activeTasksOf(stayers).containsAll(moving));
		assertRestoredAtPromotionAtMostTheLag(moving, stayers);
		verifyCounts(producer);
	}

	static void assertRestoredAtPromotionAtMostTheLag(Set<TaskId> moved, StreamsInstance... newOwners) {
		RestoredRecords.assertRestoredAtPromotionAtMost(ACCEPTABLE_LAG, moved,
				StreamsInstance.restoredRecordsOf(newOwners));
	}

}
