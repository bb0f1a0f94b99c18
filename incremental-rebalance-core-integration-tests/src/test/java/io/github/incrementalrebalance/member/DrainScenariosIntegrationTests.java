package io.github.incrementalrebalance.member;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import ch.qos.logback.classic.Level;
import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.control.ControlCodec;
import io.github.incrementalrebalance.control.ControlTopicWriter;
import io.github.incrementalrebalance.control.LeaveCancel;
import io.github.incrementalrebalance.control.LeaveRecord;
import io.github.incrementalrebalance.control.PlanRecord;
import io.github.incrementalrebalance.planner.MemberPlan;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.LogCapture;
import io.github.incrementalrebalance.testkit.RestoreThrottle;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static io.github.incrementalrebalance.member.DrainScenarioGroup.ACCEPTABLE_LAG;
import static io.github.incrementalrebalance.member.DrainScenarioGroup.PARTITIONS;
import static io.github.incrementalrebalance.member.DrainScenarioGroup.assertRestoredAtPromotionAtMostTheLag;
import static io.github.incrementalrebalance.member.DrainScenarioGroup.throttles;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * How a leave through learners goes besides the plain hand-over: eager and conservative, cancelled, at its deadline,
 * asked by a requester whose clock is off, and longer than the leave record's retention. Leaves that end without
 * learners are {@link LeaveWithoutLearnersIntegrationTests}; the set-up of both is {@link DrainScenarioGroup}.
 */
@Tag(TestTags.BROKER)
class DrainScenariosIntegrationTests {

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@Test
	void eagerMovesTheFastTaskWhileTheSlowLearnerStillWarms() {
		DrainScenarioGroup group = group("eager", "eager");
		try (TrackingProducer producer = group.producer(); StreamsLauncher launcher = group.launcher()) {
			Roles roles = Roles.leaveOnceSettled(group, launcher, producer);
			Set<TaskId> ofLeaver = roles.tasksOfLeaver();

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
		DrainScenarioGroup group = group("conservative", "conservative");
		try (TrackingProducer producer = group.producer(); StreamsLauncher launcher = group.launcher()) {
			Roles roles = Roles.leaveOnceSettled(group, launcher, producer);
			Set<TaskId> ofLeaver = roles.tasksOfLeaver();

			await("the fast learner is ready").atMost(Duration.ofSeconds(30))
				.until(() -> roles.fast().plan()
					.map((plan) -> !plan.readyLearners().isEmpty())
					.orElse(false));
			assertThat(roles.leaver().activeTasks()).as("conservative: nothing moves before every learner is ready")
				.isEqualTo(ofLeaver);
			assertThat(roles.leaver().runtime().tasks()).extracting(TaskState::role)
				.containsOnly(TaskRole.BEING_LEARNED);
			// the slow learner's lag is known once its throttled restore began, which may be after the fast one is ready
			await("the slow learner reports how far behind it is").atMost(Duration.ofSeconds(30))
				.untilAsserted(() -> assertThat(roles.slow().runtime().tasks())
					.anySatisfy((task) -> assertThat(task).satisfies((learner) -> {
						assertThat(learner.role()).isEqualTo(TaskRole.LEARNING);
						assertThat(learner.ready()).isFalse();
						assertThat(learner.lag()).isPresent();
						assertThat(learner.lag().getAsLong()).isGreaterThan(ACCEPTABLE_LAG);
					})));
			assertThat(roles.leaver().activeTasks()).as("conservative: still nothing moved").isEqualTo(ofLeaver);
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

	/**
	 * b leaves and a cancels it: b stays, keeps its tasks, and the learners go; a is told so by b's answer (a plan of
	 * the round b asked for that no longer acts on the leave).
	 */
	@Test
	void cancelledLeaveKeepsTheTasksAndDropsTheLearners() {
		DrainScenarioGroup group = group("cancel", "conservative");
		try (TrackingProducer producer = group.producer(); StreamsLauncher launcher = group.launcher()) {
			StreamsInstance a = group.member(launcher, "a", RestoreThrottle.of(250));
			StreamsInstance b = group.member(launcher, "b", RestoreThrottle.of(250));
			StreamsInstance c = group.member(launcher, "c", RestoreThrottle.of(250));
			group.loadAndSettle(producer, a, b, c);
			Set<TaskId> ofB = b.activeTasks();

			b.runtime().leave(Optional.empty(), "test");
			await("learners placed").atMost(Duration.ofSeconds(30))
				.until(() -> b.plan().map(MemberPlan::leaving).orElse(false));
			assertThat(a.runtime().cancelLeaveOf("b", Duration.ofSeconds(30))).as("cancelled from another member: b's answer")
				.contains(LeaveCancel.Result.of(LeaveCancel.Answer.CANCELLED));

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
		DrainScenarioGroup group = group("deadline", "conservative");
		try (TrackingProducer producer = group.producer(); StreamsLauncher launcher = group.launcher()) {
			Map<String, RestoreThrottle> throttles = throttles(100);
			List<StreamsInstance> members = group.settledMembers(launcher, producer, throttles);
			StreamsInstance a = members.get(0);
			StreamsInstance b = members.get(1);
			StreamsInstance c = members.get(2);
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

	/**
	 * A leave as a newer command line writes it, from a machine whose clock is thirty seconds behind: a higher format
	 * version with fields of its own, among records of a kind this version does not know. The member drains through
	 * learners; the records it cannot know are skipped with an INFO per kind, none with a WARN.
	 */
	@Test
	void leaveANewerCommandLineWroteFromAClockThirtySecondsBehindStillDrainsThroughLearners() {
		DrainScenarioGroup group = group("skewed-requester", "conservative");
		try (TrackingProducer producer = group.producer();
				StreamsLauncher launcher = group.launcher();
				LogCapture controlLog = LogCapture.ofPackageOf(ControlTopicWriter.class)) {
			StreamsInstance a = group.member(launcher, "a", RestoreThrottle.unlimited());
			StreamsInstance b = group.member(launcher, "b", RestoreThrottle.unlimited());
			StreamsInstance c = group.member(launcher, "c", RestoreThrottle.unlimited());
			group.loadAndSettle(producer, a, b, c);
			Set<TaskId> ofB = b.activeTasks();
			Instant requesterClock = Instant.now().minus(Duration.ofSeconds(30));
			LeaveRecord leave = LeaveRecord.request("b", b.runtime().identity().incarnation(), requesterClock,
					Optional.of(Duration.ofMinutes(2)), "cli");
			String newer = new String(ControlCodec.encodeValue(leave), StandardCharsets.UTF_8)
				.replaceFirst("^\\{\"v\":\\d+,", "{\"v\":99,\"priority\":{\"order\":[\"0_1\"]},\"requestedBy\":\"ops\",");

			try (KafkaProducer<String, String> requester = new KafkaProducer<>(
					Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), new StringSerializer(),
					new StringSerializer())) {
				String topic = b.runtime().controlTopic();
				requester.send(new ProducerRecord<>(topic, 0, "owner/b/" + leave.incarnation(), "{\"v\":99}"));
				requester.send(new ProducerRecord<>(topic, 0, leave.key(), newer));
				requester.send(new ProducerRecord<>(topic, 0, "audit/" + leave.leaveId(), "{\"v\":99,\"by\":\"ops\"}"));
			}

			await("b drained and closed").atMost(Duration.ofMinutes(1))
				.until(() -> b.runtime().state() == MemberState.CLOSED);
			assertThat(b.runtime().drainOutcome()).contains(DrainOutcome.of(DrainOutcome.Reason.LEARNERS_READY, 0));
			await("a and c run every task").atMost(Duration.ofSeconds(30))
				.until(() -> StreamsInstance.activeTasksOf(a, c).size() == PARTITIONS);
			assertRestoredAtPromotionAtMostTheLag(ofB, a, c);
			group.verifyCounts(producer);
			assertThat(controlLog.messages(Level.INFO)).anyMatch((line) -> line.contains("kind 'owner/'"))
				.anyMatch((line) -> line.contains("kind 'audit/'"));
			assertThat(controlLog.messages(Level.WARN)).noneMatch((line) -> line.contains("Skipping control record"));
		}
	}

	@Test
	void drainLongerThanTheLeaveRecordRetentionStillHandsOverAndItsRecordGoesOnlyOnceTheMemberIsGone() {
		DrainScenarioGroup group = group("long-drain", "conservative");
		try (TrackingProducer producer = group.producer();
				StreamsLauncher launcher = group.launcher()
					.property(LearnerConfig.LEAVE_RECORD_RETENTION_MS_CONFIG, 1_000L);
				LogCapture drainLog = LogCapture.of(Drain.class)) {
			// the learners need about 8 s: eight times the retention of a leave record whose member is gone
			Map<String, RestoreThrottle> throttles = throttles(1_250);
			List<StreamsInstance> members = group.settledMembers(launcher, producer, throttles);
			StreamsInstance a = members.get(0);
			StreamsInstance b = members.get(1);
			StreamsInstance c = members.get(2);
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

	private DrainScenarioGroup group(String applicationId, String learnerRebalance) {
		return new DrainScenarioGroup(broker, this.stateRoot, applicationId, learnerRebalance);
	}

	/**
	 * Who does what once the tasks are placed: the member with two tasks leaves, one of the others warms up fast, the
	 * third slowly until the test releases it.
	 */
	private record Roles(StreamsInstance leaver, Set<TaskId> tasksOfLeaver, StreamsInstance fast, StreamsInstance slow,
			RestoreThrottle slowThrottle) {

		/** Starts a, b and c restoring 500 records a second, gives every task its state and asks the leaver to leave. */
		static Roles leaveOnceSettled(DrainScenarioGroup group, StreamsLauncher launcher, TrackingProducer producer) {
			Map<String, RestoreThrottle> throttles = throttles(500);
			List<StreamsInstance> members = group.settledMembers(launcher, producer, throttles);
			StreamsInstance leaver = members.stream()
				.filter((member) -> member.activeTasks().size() == 2)
				.findFirst()
				.orElseThrow();
			List<StreamsInstance> others = members.stream().filter((member) -> member != leaver).toList();
			throttles.get(others.get(0).name()).release();
			Roles roles = new Roles(leaver, leaver.activeTasks(), others.get(0), others.get(1),
					throttles.get(others.get(1).name()));
			leaver.runtime().leave(Optional.empty(), "test");
			return roles;
		}

		long enforcedByLearners() {
			return this.fast.clientSupplier(MemberClientSupplier.class).rebalanceTrigger().enforcedCount()
					+ this.slow.clientSupplier(MemberClientSupplier.class).rebalanceTrigger().enforcedCount();
		}

	}

}
