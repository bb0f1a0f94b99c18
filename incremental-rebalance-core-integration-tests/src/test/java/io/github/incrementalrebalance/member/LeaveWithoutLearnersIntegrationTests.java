package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
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
import io.github.incrementalrebalance.planner.HandOverReason;
import io.github.incrementalrebalance.planner.MemberPlan;
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

import static io.github.incrementalrebalance.member.DrainScenarioGroup.ACCEPTABLE_LAG;
import static io.github.incrementalrebalance.member.DrainScenarioGroup.PARTITIONS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Leaves that end without learners, and leaves that wait for a group that does not answer: as the only member, after
 * a malformed control record, in mode upgrading, under a leader running Kafka's assignor (waiting and saying why, or
 * with {@code leave.unanswered=leave} leaving after its timeout), and when the leader's plans cannot be written. The
 * set-up is {@link DrainScenarioGroup}'s.
 */
@Tag(TestTags.BROKER)
class LeaveWithoutLearnersIntegrationTests {

	/**
	 * These tests show how a leave ends and what it says, not what a move costs: state four times the acceptable lag
	 * still tells a cold move from a warm one, at a fifth of the load (the plan-writing test sends each record of it
	 * in a request of its own).
	 */
	private static final int KEYS_PER_TASK = 2_000;

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@Test
	void onlyMemberAskedToLeaveLeavesAtOnceAfterAMalformedControlRecord() {
		DrainScenarioGroup group = group("alone", "conservative");
		try (TrackingProducer producer = group.producer(); StreamsLauncher launcher = group.launcher()) {
			StreamsInstance a = group.member(launcher, "a", RestoreThrottle.unlimited());
			group.loadAndSettle(producer, KEYS_PER_TASK, a);
			try (KafkaProducer<String, String> raw = new KafkaProducer<>(
					Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), new StringSerializer(),
					new StringSerializer())) {
				raw.send(new ProducerRecord<>(a.runtime().controlTopic(), 0, "leave/a/1", "{\"v\":\"one\"}"));
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

	/**
	 * A pod killed at the end of its grace period mid-drain records nothing: the leader that plans without it records
	 * its end for it, {@code killed} with the tasks whose learners were not ready, once the member had the control
	 * topic's timeout to record it itself, and the others' view and counters learn how it ended.
	 */
	@Test
	void aMemberKilledMidDrainHasItsEndRecordedByTheLeaderWithTheTasksThatMovedCold() {
		DrainScenarioGroup group = group("killed", "conservative");
		RestoreThrottle learnersOfA = RestoreThrottle.unlimited();
		try (TrackingProducer producer = group.producer();
				StreamsLauncher launcher = group.launcher()
					.property(LearnerConfig.CONTROL_TOPIC_TIMEOUT_MS_CONFIG, 3_000L)) {
			StreamsInstance a = group.member(launcher, "a", learnersOfA);
			StreamsInstance b = group.member(launcher, "b", RestoreThrottle.unlimited());
			group.loadAndSettle(producer, KEYS_PER_TASK, a, b);
			learnersOfA.hold();
			Set<TaskId> ofB = b.activeTasks();
			b.runtime().leave(Optional.empty(), "test");
			DrainScenarioGroup.awaitLeaveAcknowledged(b, List.of(a, b), Duration.ofMinutes(1));

			// killed: nothing of the member runs or writes again, and its Kafka Streams are gone
			b.runtime().close();
			b.kafkaStreams().close(Duration.ofSeconds(10));

			await("a, which stayed and leads, records how b's leave ended").atMost(Duration.ofMinutes(1))
				.until(() -> a.runtime().controlView().leaveRecord("b").flatMap(LeaveRecord::ended).isPresent());
			assertThat(a.runtime().controlView().leaveRecord("b").flatMap(LeaveRecord::ended))
				.as("every task of b, whose learner on a was held").hasValue(new LeaveRecord.Ended(
						LeaveRecord.Ended.KILLED, LeaveRecord.Ended.NO_END_RECORDED, ofB.size()));
			learnersOfA.release();
			await("a runs every task").atMost(Duration.ofMinutes(1))
				.until(() -> StreamsInstance.allRunning(a) && a.activeTasks().size() == PARTITIONS);
			group.verifyCounts(producer);
		}
	}

	@Test
	void memberInModeUpgradingLeavesAtOnce() {
		DrainScenarioGroup group = group("upgrading", "conservative");
		try (TrackingProducer producer = group.producer(); StreamsLauncher launcher = group.launcher()) {
			StreamsInstance a = group.member(launcher, "a", RestoreThrottle.unlimited());
			StreamsInstance b = launcher.instance("b")
				.property(LearnerConfig.REBALANCING_MODE_CONFIG, "upgrading")
				.memberRuntime()
				.start();
			group.loadAndSettle(producer, KEYS_PER_TASK, a, b);

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
		DrainScenarioGroup group = group("kafka-leader-wait", "conservative");
		try (TrackingProducer producer = group.producer(); StreamsLauncher launcher = group.launcher()) {
			StreamsInstance leader = group.upgradingLeader(launcher);
			StreamsInstance b = launcher.instance("b")
				.property(LearnerConfig.LEAVE_ACKNOWLEDGEMENT_TIMEOUT_MS_CONFIG, 2_000)
				.memberRuntime()
				.start();
			group.loadAndSettle(producer, KEYS_PER_TASK, leader, b);
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
		DrainScenarioGroup group = group("kafka-leader", "conservative");
		try (TrackingProducer producer = group.producer(); StreamsLauncher launcher = group.launcher();
				LogCapture log = LogCapture.of(Drain.class)) {
			StreamsInstance leader = group.upgradingLeader(launcher);
			StreamsInstance b = launcher.instance("b")
				.property(LearnerConfig.LEAVE_ACKNOWLEDGEMENT_TIMEOUT_MS_CONFIG, 2_000)
				.property(LearnerConfig.LEAVE_UNANSWERED_CONFIG, "leave")
				.memberRuntime()
				.start();
			group.loadAndSettle(producer, KEYS_PER_TASK, leader, b);
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
		DrainScenarioGroup group = group("unwritable-plans", "conservative");
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
			group.loadAndSettle(producer, KEYS_PER_TASK, a, b);
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

	private DrainScenarioGroup group(String applicationId, String learnerRebalance) {
		return new DrainScenarioGroup(broker, this.stateRoot, applicationId, learnerRebalance);
	}

}
