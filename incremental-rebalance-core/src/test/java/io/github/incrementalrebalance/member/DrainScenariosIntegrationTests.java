package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import ch.qos.logback.classic.Level;
import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.control.ControlCodec;
import io.github.incrementalrebalance.control.ControlTopicWriter;
import io.github.incrementalrebalance.control.LeaveRecord;
import io.github.incrementalrebalance.control.PlanRecord;
import io.github.incrementalrebalance.planner.HandOverReason;
import io.github.incrementalrebalance.planner.MemberPlan;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.GapMeter;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.LogCapture;
import io.github.incrementalrebalance.testkit.RestoreThrottle;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * How a leave ends besides the plain hand-over: eager and conservative, cancelled, at its deadline, as the only
 * member, and in mode upgrading. Restores are throttled per instance so learners warm up as slowly as each test
 * needs; the assignor's safety-net follow-up is 5 minutes, so moves come from the members' own triggers.
 */
@Tag(TestTags.BROKER)
class DrainScenariosIntegrationTests {

	private static final int PARTITIONS = 4;

	/** A twentieth of the state per task: a move that restores it cold fails the bound. */
	private static final long ACCEPTABLE_LAG = 500;

	private static final int KEYS_PER_TASK = 10_000;

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@Test
	void eagerMovesTheFastTaskWhileTheSlowLearnerStillWarms() {
		Group group = new Group("eager", "eager");
		try (TrackingProducer producer = group.producer(); StreamsLauncher launcher = group.launcher()) {
			Map<String, RestoreThrottle> throttles = throttles(500);
			List<StreamsInstance> members = group.members(launcher, throttles);
			group.loadAndSettle(producer, members.toArray(StreamsInstance[]::new));
			Roles roles = Roles.of(members, throttles);
			Set<TaskId> ofLeaver = roles.leaver().activeTasks();

			roles.leaver().runtime().leave(Optional.empty(), "test");

			await("the leaver runs one task, the other moved").atMost(Duration.ofMinutes(1))
				.until(() -> roles.leaver().activeTasks().size() == 1
						&& roles.leaver().state() == KafkaStreams.State.RUNNING);
			assertThat(roles.leaver().runtime().state()).isEqualTo(MemberState.LEAVING);
			TaskId slowTask = roles.leaver().activeTasks().iterator().next();
			assertThat(roles.slow().plan().map(MemberPlan::learning)
				.orElseThrow()).as("the slow learner still warms up").containsKey(slowTask);
			roles.slowThrottle().release();
			await("the leaver drained").atMost(Duration.ofMinutes(1))
				.until(() -> roles.leaver().runtime().state() == MemberState.CLOSED);
			long enforced = roles.enforcedByLearners();
			System.out.printf("eager: the learners' members enforced %d rebalances%n", enforced);
			// a learner that gets ready while a rebalance its member joined is in flight rides on that one
			// (RebalanceTrigger drops its request), which a loaded machine sees now and then
			assertThat(enforced).as("at most one per ready learner").isBetween(1L, 2L);
			await().atMost(Duration.ofSeconds(30))
				.until(() -> StreamsInstance.activeTasksOf(roles.fast(), roles.slow()).containsAll(ofLeaver));
			assertThat(roles.leaver().runtime().drainOutcome()).as("every task went to a ready learner")
				.contains(DrainOutcome.of(DrainOutcome.Reason.LEARNERS_READY, 0));
			assertRestoredAtPromotionAtMostTheLag(ofLeaver, roles.fast(), roles.slow());
			group.verifyCounts(producer);
		}
	}

	@Test
	void conservativeMovesBothTasksTogetherThroughTheHandOver() {
		Group group = new Group("conservative", "conservative");
		try (TrackingProducer producer = group.producer(); StreamsLauncher launcher = group.launcher()) {
			Map<String, RestoreThrottle> throttles = throttles(500);
			List<StreamsInstance> members = group.members(launcher, throttles);
			group.loadAndSettle(producer, members.toArray(StreamsInstance[]::new));
			Roles roles = Roles.of(members, throttles);
			Set<TaskId> ofLeaver = roles.leaver().activeTasks();

			roles.leaver().runtime().leave(Optional.empty(), "test");

			await("the fast learner is ready").atMost(Duration.ofSeconds(30))
				.until(() -> roles.fast().plan()
					.map((plan) -> !plan.readyLearners().isEmpty())
					.orElse(false));
			assertThat(roles.leaver().activeTasks()).as("conservative: nothing moves before every learner is ready")
				.isEqualTo(ofLeaver);
			assertThat(roles.leaver().runtime().tasks()).extracting(TaskState::role)
				.containsOnly(TaskRole.BEING_LEARNED);
			assertThat(roles.slow().runtime().tasks())
				.anySatisfy((task) -> assertThat(task).satisfies((learner) -> {
					assertThat(learner.role()).isEqualTo(TaskRole.LEARNING);
					assertThat(learner.ready()).isFalse();
					assertThat(learner.lag()).isPresent();
					assertThat(learner.lag().getAsLong()).isGreaterThan(ACCEPTABLE_LAG);
				}));
			roles.slowThrottle().release();
			await("the leaver drained").atMost(Duration.ofMinutes(1))
				.until(() -> roles.leaver().runtime().state() == MemberState.CLOSED);
			await().atMost(Duration.ofSeconds(30))
				.until(() -> StreamsInstance.activeTasksOf(roles.fast(), roles.slow()).containsAll(ofLeaver));
			assertThat(roles.leaver().runtime().drainOutcome()).as("the leader handed over for ready learners")
				.contains(DrainOutcome.of(DrainOutcome.Reason.LEARNERS_READY, 0));
			assertRestoredAtPromotionAtMostTheLag(ofLeaver, roles.fast(), roles.slow());
			long enforced = roles.enforcedByLearners();
			System.out.printf("conservative: the learners' members enforced %d rebalances%n", enforced);
			assertThat(enforced).as("at most one per member once all its learners are ready").isBetween(1L, 2L);
		}
	}

	@Test
	void cancelledLeaveKeepsTheTasksAndDropsTheLearners() {
		Group group = new Group("cancel", "conservative");
		try (TrackingProducer producer = group.producer(); StreamsLauncher launcher = group.launcher()) {
			StreamsInstance a = group.member(launcher, "a", RestoreThrottle.of(250));
			StreamsInstance b = group.member(launcher, "b", RestoreThrottle.of(250));
			StreamsInstance c = group.member(launcher, "c", RestoreThrottle.of(250));
			group.loadAndSettle(producer, a, b, c);
			Set<TaskId> ofB = b.activeTasks();

			b.runtime().leave(Optional.empty(), "test");
			await("learners placed").atMost(Duration.ofSeconds(30))
				.until(() -> b.plan().map(MemberPlan::leaving).orElse(false));
			assertThat(b.runtime().cancel()).isTrue();

			assertThat(b.runtime().state()).isEqualTo(MemberState.STABLE);
			await("plan without b leaving and without learners").atMost(Duration.ofSeconds(30))
				.until(() -> b.runtime().controlView().plans().stream()
					.map(PlanRecord::plan)
					.allMatch((plan) -> !plan.leaving() && plan.learning().isEmpty()));
			assertThat(b.activeTasks()).isEqualTo(ofB);
		}
	}

	@Test
	void leaveWhoseLearnersCannotFinishInTimeEndsAtItsDeadline() {
		Group group = new Group("deadline", "conservative");
		try (TrackingProducer producer = group.producer(); StreamsLauncher launcher = group.launcher()) {
			Map<String, RestoreThrottle> throttles = throttles(100);
			List<StreamsInstance> members = group.members(launcher, throttles);
			StreamsInstance a = members.get(0);
			StreamsInstance b = members.get(1);
			StreamsInstance c = members.get(2);
			group.loadAndSettle(producer, a, b, c);
			Set<TaskId> ofB = b.activeTasks();
			Instant askedAt = Instant.now();

			b.runtime().leave(Optional.of(Duration.ofSeconds(4)), "test");

			await("b forced out and closed").atMost(Duration.ofMinutes(1))
				.until(() -> b.runtime().state() == MemberState.CLOSED);
			assertThat(Duration.between(askedAt, Instant.now())).isGreaterThanOrEqualTo(Duration.ofSeconds(4));
			assertThat(b.runtime().drainOutcome()).hasValueSatisfying((outcome) -> {
				assertThat(outcome.kind()).isEqualTo(DrainOutcome.Kind.FORCED);
				assertThat(outcome.reason()).isEqualTo(DrainOutcome.Reason.DEADLINE_PASSED);
				assertThat(outcome.tasksMovedCold()).as("b's tasks whose learners were not ready")
					.isEqualTo(ofB.size());
			});
			throttles.values().forEach(RestoreThrottle::release);
			await("a and c run every task").atMost(Duration.ofMinutes(1))
				.until(() -> StreamsInstance.allRunning(a, c)
						&& StreamsInstance.activeTasksOf(a, c).size() == PARTITIONS);
			assertThat(StreamsInstance.activeTasksOf(a, c)).containsAll(ofB);
			group.verifyCounts(producer);
		}
	}

	@Test
	void onlyMemberAskedToLeaveLeavesAtOnceAfterAMalformedControlRecord() {
		Group group = new Group("alone", "conservative");
		try (TrackingProducer producer = group.producer(); StreamsLauncher launcher = group.launcher()) {
			StreamsInstance a = group.member(launcher, "a", RestoreThrottle.unlimited());
			group.loadAndSettle(producer, a);
			try (KafkaProducer<String, String> raw = new KafkaProducer<>(
					Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), new StringSerializer(),
					new StringSerializer())) {
				raw.send(new ProducerRecord<>(a.runtime().controlTopic(), 0, "leave/a", "{\"v\":\"one\"}"));
			}
			producer.flush();
			await("markers flow after the malformed record").atMost(Duration.ofSeconds(30))
				.until(() -> group.gapMeter().allProcessedSince(a.activeTasks(), Instant.now().minusMillis(300)));
			assertThat(a.state()).isEqualTo(KafkaStreams.State.RUNNING);
			assertThat(a.runtime().state()).isEqualTo(MemberState.STABLE);

			assertThatExceptionOfType(LeaveRefusedException.class)
				.isThrownBy(() -> a.runtime().leave(Optional.empty(), "test"))
				.satisfies((refused) -> assertThat(refused.reason())
					.isEqualTo(LeaveRefusedException.Reason.LAST_STABLE_MEMBER))
				.withMessageContaining("No other member of alone would stay in the group")
				.withMessageContaining("ask again with force");
			assertThat(a.runtime().state()).isEqualTo(MemberState.STABLE);

			a.runtime().leave(Optional.empty(), "test", true);

			await("a closed").atMost(Duration.ofSeconds(30)).until(() -> a.runtime().state() == MemberState.CLOSED);
			assertThat(a.plan().flatMap(MemberPlan::handOver))
				.contains(HandOverReason.NO_OTHER_MEMBER);
			assertThat(a.runtime().drainOutcome())
				.contains(DrainOutcome.of(DrainOutcome.Reason.NO_OTHER_MEMBER, PARTITIONS));
		}
	}

	@Test
	void memberInModeUpgradingLeavesAtOnce() {
		Group group = new Group("upgrading", "conservative");
		try (TrackingProducer producer = group.producer(); StreamsLauncher launcher = group.launcher()) {
			StreamsInstance a = group.member(launcher, "a", RestoreThrottle.unlimited());
			StreamsInstance b = launcher.instance("b")
				.property(LearnerConfig.REBALANCING_MODE_CONFIG, "upgrading")
				.memberRuntime()
				.start();
			group.loadAndSettle(producer, a, b);

			List<MemberState> states = new CopyOnWriteArrayList<>();
			b.runtime().addStateListener(states::add);
			Set<TaskId> ofB = b.activeTasks();

			b.runtime().leave(Optional.empty(), "test");

			await("b closed").atMost(Duration.ofSeconds(30)).until(() -> b.runtime().state() == MemberState.CLOSED);
			assertThat(states).containsExactly(MemberState.LEAVING, MemberState.LEFT_WITHOUT_LEARNERS,
					MemberState.CLOSED);
			assertThat(b.runtime().drainOutcome()).contains(
					DrainOutcome.of(DrainOutcome.Reason.OWN_MODE_UPGRADING, ofB.size()));
			await("a runs every task").atMost(Duration.ofSeconds(30))
				.until(() -> a.activeTasks().size() == PARTITIONS && a.state() == KafkaStreams.State.RUNNING);
			assertThat(ofB).as("b's tasks restored from scratch on a: nothing was warm")
				.allSatisfy((task) -> assertThat(a.restoredRecords().restoredInto(task)).isGreaterThan(ACCEPTABLE_LAG));
		}
	}

	/**
	 * A leader on Kafka's assignor publishes no plan: by default the leave keeps asking and says why, the member keeps
	 * its tasks; the operator cancels.
	 */
	@Test
	void leaveUnderALeaderRunningKafkasAssignorWaitsAndSaysWhyUntilCancelled() {
		Group group = new Group("kafka-leader-wait", "conservative");
		try (TrackingProducer producer = group.producer(); StreamsLauncher launcher = group.launcher()) {
			StreamsInstance leader = group.upgradingLeader(launcher);
			StreamsInstance b = launcher.instance("b")
				.property(LearnerConfig.LEAVE_ACKNOWLEDGEMENT_TIMEOUT_MS_CONFIG, 2_000)
				.memberRuntime()
				.start();
			group.loadAndSettle(producer, leader, b);
			Set<TaskId> ofB = b.activeTasks();

			b.runtime().leave(Optional.empty(), "test");

			await("b says why its leave waits").atMost(Duration.ofSeconds(30))
				.until(() -> b.runtime().leaveWaiting().isPresent());
			assertThat(b.runtime().leaveWaiting().orElseThrow()).contains("the leader published no learner plan");
			assertThat(b.runtime().state()).isEqualTo(MemberState.LEAVING);
			assertThat(b.activeTasks()).as("nothing moved cold").isEqualTo(ofB);

			assertThat(b.runtime().cancel()).isTrue();
			assertThat(b.runtime().state()).isEqualTo(MemberState.STABLE);
			assertThat(b.runtime().leaveWaiting()).isEmpty();
			assertThat(b.runtime().drainOutcome()).isEmpty();
		}
	}

	@Test
	void withLeaveUnansweredALeaveUnderALeaderRunningKafkasAssignorLeavesAfterItsTimeoutAndSaysWhy() {
		Group group = new Group("kafka-leader", "conservative");
		try (TrackingProducer producer = group.producer(); StreamsLauncher launcher = group.launcher();
				LogCapture log = LogCapture.of(Drain.class)) {
			StreamsInstance leader = group.upgradingLeader(launcher);
			StreamsInstance b = launcher.instance("b")
				.property(LearnerConfig.LEAVE_ACKNOWLEDGEMENT_TIMEOUT_MS_CONFIG, 2_000)
				.property(LearnerConfig.LEAVE_UNANSWERED_CONFIG, "leave")
				.memberRuntime()
				.start();
			group.loadAndSettle(producer, leader, b);
			Instant askedAt = Instant.now();

			List<MemberState> states = new CopyOnWriteArrayList<>();
			b.runtime().addStateListener(states::add);

			b.runtime().leave(Optional.empty(), "test");

			await("b closed").atMost(Duration.ofSeconds(30)).until(() -> b.runtime().state() == MemberState.CLOSED);
			assertThat(Duration.between(askedAt, Instant.now())).isLessThan(Duration.ofSeconds(8));
			assertThat(states).doesNotContain(MemberState.DRAINED).contains(MemberState.LEFT_WITHOUT_LEARNERS);
			assertThat(b.runtime().drainOutcome()).hasValueSatisfying(
					(outcome) -> assertThat(outcome.reason()).isEqualTo(DrainOutcome.Reason.NO_LEARNER_PLAN));
			assertThat(log.messages(Level.WARN)).anySatisfy((warn) -> assertThat(warn)
				.contains("b leaves the group, left-without-learners (no-learner-plan)")
				.contains("the leader published no learner plan after the rebalance"));
		}
	}

	@Test
	void withLeaveUnansweredPlanWritesThatFailEndTheLeaveWithoutLearnersAndTheLeaderSaysWhy() throws Exception {
		Group group = new Group("unwritable-plans", "conservative");
		try (TrackingProducer producer = group.producer(); StreamsLauncher launcher = group.launcher()) {
			// one record per batch: a batch of several records over the topic's limit is split again and again by the
			// producer until its delivery timeout, where a single record over it fails at the broker's first answer
			StreamsInstance a = launcher.instance("a")
				.property(StreamsConfig.PRODUCER_PREFIX + ProducerConfig.BATCH_SIZE_CONFIG, 0)
				.memberRuntime()
				.start();
			StreamsInstance b = launcher.instance("b")
				.property(StreamsConfig.PRODUCER_PREFIX + ProducerConfig.BATCH_SIZE_CONFIG, 0)
				.property(LearnerConfig.LEAVE_ACKNOWLEDGEMENT_TIMEOUT_MS_CONFIG, 2_000)
				.property(LearnerConfig.LEAVE_UNANSWERED_CONFIG, "leave")
				.memberRuntime()
				.start();
			group.loadAndSettle(producer, a, b);
			String controlTopic = b.runtime().controlTopic();
			// a leave request is smaller than a leaving member's plan: a topic that takes no larger record than a
			// request (plus a batch's overhead) keeps the leaves and loses every plan of a leaving member
			LeaveRecord asked = LeaveRecord.request("b", b.runtime().identity().incarnation(), Instant.now(),
					Optional.empty(), "test");
			int request = ControlCodec.encodeValue(asked).length + asked.key().length();
			broker.admin().incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, controlTopic),
					List.of(new AlterConfigOp(new ConfigEntry(TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
							String.valueOf(request + 120)), AlterConfigOp.OpType.SET))))
				.all()
				.get();
			List<MemberState> states = new CopyOnWriteArrayList<>();
			b.runtime().addStateListener(states::add);

			try (LogCapture log = LogCapture.of(ControlTopicWriter.class)) {
				b.runtime().leave(Optional.empty(), "test");

				await("b closed").atMost(Duration.ofMinutes(1)).until(() -> b.runtime().state() == MemberState.CLOSED);
				assertThat(states).doesNotContain(MemberState.DRAINED).contains(MemberState.LEFT_WITHOUT_LEARNERS);
				assertThat(b.runtime().drainOutcome()).hasValueSatisfying(
						(outcome) -> assertThat(outcome.reason()).isEqualTo(DrainOutcome.Reason.NO_LEARNER_PLAN));
				// the plan of a alone may fit again once b is gone: what the leader said while it did not is the point
				await("the leader reports the plans it cannot publish").atMost(Duration.ofSeconds(30))
					.until(() -> log.messages(Level.WARN).stream()
						.anyMatch((warn) -> warn.contains("the last plan could not be published to " + controlTopic)));
			}
		}
	}

	@Test
	void leaveFromARequesterWhoseClockIsThirtySecondsBehindStillDrainsThroughLearners() {
		Group group = new Group("skewed-requester", "conservative");
		try (TrackingProducer producer = group.producer(); StreamsLauncher launcher = group.launcher()) {
			StreamsInstance a = group.member(launcher, "a", RestoreThrottle.unlimited());
			StreamsInstance b = group.member(launcher, "b", RestoreThrottle.unlimited());
			StreamsInstance c = group.member(launcher, "c", RestoreThrottle.unlimited());
			group.loadAndSettle(producer, a, b, c);
			Set<TaskId> ofB = b.activeTasks();
			Instant requesterClock = Instant.now().minus(Duration.ofSeconds(30));

			try (ControlTopicWriter requester = new ControlTopicWriter(
					Map.of(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), b.runtime().controlTopic())) {
				requester.write(LeaveRecord.request("b", b.runtime().identity().incarnation(), requesterClock,
						Optional.of(Duration.ofMinutes(2)), "cli")).join();
			}

			await("b drained and closed").atMost(Duration.ofMinutes(1))
				.until(() -> b.runtime().state() == MemberState.CLOSED);
			assertThat(b.runtime().drainOutcome()).contains(DrainOutcome.of(DrainOutcome.Reason.LEARNERS_READY, 0));
			await("a and c run every task").atMost(Duration.ofSeconds(30))
				.until(() -> StreamsInstance.activeTasksOf(a, c).size() == PARTITIONS);
			assertRestoredAtPromotionAtMostTheLag(ofB, a, c);
			group.verifyCounts(producer);
		}
	}

	@Test
	void drainLongerThanTheLeaveRecordRetentionStillHandsOverAndItsRecordGoesOnlyOnceTheMemberIsGone() {
		Group group = new Group("long-drain", "conservative");
		try (TrackingProducer producer = group.producer();
				StreamsLauncher launcher = group.launcher()
					.property(LearnerConfig.LEAVE_RECORD_RETENTION_MS_CONFIG, 1_000L);
				LogCapture drainLog = LogCapture.of(Drain.class)) {
			// the learners need about 8 s: eight times the retention of a leave record whose member is gone
			Map<String, RestoreThrottle> throttles = throttles(1_250);
			List<StreamsInstance> members = group.members(launcher, throttles);
			StreamsInstance a = members.get(0);
			StreamsInstance b = members.get(1);
			StreamsInstance c = members.get(2);
			group.loadAndSettle(producer, a, b, c);
			Set<TaskId> ofB = b.activeTasks();
			Instant askedAt = Instant.now();

			b.runtime().leave(Optional.empty(), "test");

			await("b drained and closed").atMost(Duration.ofMinutes(1))
				.until(() -> b.runtime().state() == MemberState.CLOSED);
			assertThat(Duration.between(askedAt, Instant.now())).as("the drain outlived the retention many times")
				.isGreaterThan(Duration.ofSeconds(5));
			assertThat(b.runtime().drainOutcome()).contains(DrainOutcome.of(DrainOutcome.Reason.LEARNERS_READY, 0));
			assertThat(drainLog.messages(Level.WARN)).as("its leave record never went while it was leaving")
				.noneMatch((warn) -> warn.contains("disappeared"));
			await("a and c run every task").atMost(Duration.ofSeconds(30))
				.until(() -> StreamsInstance.activeTasksOf(a, c).size() == PARTITIONS);
			assertRestoredAtPromotionAtMostTheLag(ofB, a, c);

			RebalanceTrigger trigger = a.clientSupplier(MemberClientSupplier.class).rebalanceTrigger();
			await("b gone for longer than the retention: the next plans remove its record").atMost(Duration.ofMinutes(1))
				.pollInterval(Duration.ofSeconds(2))
				.until(() -> {
					trigger.request("test: a plan for the housekeeping");
					return a.runtime().controlView().leaveRecord("b").isEmpty();
				});
			throttles.values().forEach(RestoreThrottle::release);
			group.verifyCounts(producer);
		}
	}

	private static void assertRestoredAtPromotionAtMostTheLag(Set<TaskId> moved, StreamsInstance... newOwners) {
		for (TaskId task : moved) {
			long restored = 0;
			for (StreamsInstance owner : newOwners) {
				restored += owner.restoredRecords().restoredInto(task);
			}
			assertThat(restored).as("records restored at promotion of %s", task).isLessThanOrEqualTo(ACCEPTABLE_LAG);
		}
	}

	/**
	 * One throttle for each of a, b and c, in that order.
	 */
	private static Map<String, RestoreThrottle> throttles(long recordsPerSecond) {
		Map<String, RestoreThrottle> throttles = new LinkedHashMap<>();
		for (String name : List.of("a", "b", "c")) {
			throttles.put(name, RestoreThrottle.of(recordsPerSecond));
		}
		return throttles;
	}

	/**
	 * Who does what once the tasks are placed: the member with two tasks leaves, one of the others warms up fast, the
	 * third slowly until the test releases it.
	 */
	private record Roles(StreamsInstance leaver, StreamsInstance fast, StreamsInstance slow,
			RestoreThrottle slowThrottle) {

		static Roles of(List<StreamsInstance> members, Map<String, RestoreThrottle> throttles) {
			StreamsInstance leaver = members.stream()
				.filter((member) -> member.activeTasks().size() == 2)
				.findFirst()
				.orElseThrow();
			List<StreamsInstance> others = members.stream().filter((member) -> member != leaver).toList();
			throttles.get(others.get(0).name()).release();
			return new Roles(leaver, others.get(0), others.get(1), throttles.get(others.get(1).name()));
		}

		long enforcedByLearners() {
			return this.fast.clientSupplier(MemberClientSupplier.class).rebalanceTrigger().enforcedCount()
					+ this.slow.clientSupplier(MemberClientSupplier.class).rebalanceTrigger().enforcedCount();
		}

	}

	/**
	 * One application of a test, with the drain settings of this class.
	 */
	private final class Group {

		private final CountingApplication application;

		private final String learnerRebalance;

		Group(String applicationId, String learnerRebalance) {
			this.application = new CountingApplication(broker, applicationId, PARTITIONS);
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
				.launcher(DrainScenariosIntegrationTests.this.stateRoot.resolve(this.application.applicationId()))
				.property(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2)
				.property(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, ACCEPTABLE_LAG)
				.property(LearnerConfig.LEARNER_REBALANCE_TRIGGER_CONFIG, this.learnerRebalance)
				.property(LearnerConfig.LEARNER_PROBE_INTERVAL_MS_CONFIG, Duration.ofMinutes(5).toMillis())
				// start-up moves leave task directories behind; cleaned, they do not attract the learners
				.property(StreamsConfig.STATE_CLEANUP_DELAY_MS_CONFIG, 1_000L);
		}

		List<StreamsInstance> members(StreamsLauncher launcher, Map<String, RestoreThrottle> throttles) {
			return throttles.entrySet().stream()
				.map((entry) -> member(launcher, entry.getKey(), entry.getValue()))
				.toList();
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
			this.application.loadAndSettle(producer, KEYS_PER_TASK, instances);
		}

		void verifyCounts(TrackingProducer producer) {
			this.application.verifyCounts(producer);
		}

	}

}
