package io.github.incrementalrebalance.control;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.planner.LeaveRequest;
import io.github.incrementalrebalance.planner.MemberPlan;
import io.github.incrementalrebalance.planner.Move;
import io.github.incrementalrebalance.planner.Plan;
import ch.qos.logback.classic.Level;
import io.github.incrementalrebalance.testkit.FaultProxy;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.LogCapture;
import io.github.incrementalrebalance.testkit.MemberPlanBuilder;
import io.github.incrementalrebalance.testkit.MutableClock;
import io.github.incrementalrebalance.testkit.TestTags;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.AssignmentError;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The control topic on a real broker: created compacted with one partition, read from the beginning without a
 * consumer group, a malformed record skipped, a tombstone cancelling a leave.
 */
@Tag(TestTags.BROKER)
class ControlTopicIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@Test
	void controlTopicIsCreatedCompactedWithOnePartition() throws Exception {
		ControlTopic.ensureExists(broker.admin(), "created-control", -1, true, TIMEOUT);
		ControlTopic.ensureExists(broker.admin(), "created-control", -1, true, TIMEOUT);

		TopicDescription description = broker.admin().describeTopics(List.of("created-control")).allTopicNames().get()
			.get("created-control");
		assertThat(description.partitions()).hasSize(1);
		ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, "created-control");
		Config config = broker.admin().describeConfigs(List.of(resource)).all().get().get(resource);
		assertThat(config.get(TopicConfig.CLEANUP_POLICY_CONFIG).value()).isEqualTo(TopicConfig.CLEANUP_POLICY_COMPACT);
		assertThat(config.get(TopicConfig.SEGMENT_MS_CONFIG).value()).as("a segment rolls hourly").isEqualTo("3600000");
		assertThat(config.get(TopicConfig.MAX_COMPACTION_LAG_MS_CONFIG).value()).isEqualTo("3600000");
		assertThat(config.get(TopicConfig.MIN_CLEANABLE_DIRTY_RATIO_CONFIG).value()).isEqualTo("0.1");
	}

	/**
	 * A control topic made by hand with Kafka's defaults and a delete policy: a start reads a week of history, and a
	 * pending leave older than the retention goes. Said at start, with what to set; a topic made here says nothing.
	 */
	@Test
	void existingTopicWhoseSettingsMakeReadsLongOrLoseRecordsIsNamedWithTheFix() {
		broker.createTopics(1, Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, "compact,delete"), "by-hand-control");
		try (LogCapture log = LogCapture.of(ControlTopic.class)) {
			ControlTopic.ensureExists(broker.admin(), "by-hand-control", -1, true, TIMEOUT);
			ControlTopic.ensureExists(broker.admin(), "made-here-control", -1, true, TIMEOUT);
			ControlTopic.ensureExists(broker.admin(), "made-here-control", -1, true, TIMEOUT);

			assertThat(log.messages(Level.WARN)).singleElement().asString()
				.startsWith("Control topic by-hand-control: ")
				.contains("cleanup.policy=compact,delete deletes records older than retention.ms=604800000, a pending "
						+ "leave among them")
				.contains("segment.ms=604800000 and max.compaction.lag.ms=9223372036854775807 leave up to PT168H of "
						+ "history uncompacted, which every start reads")
				.endsWith("Set cleanup.policy=compact, segment.ms=3600000 and max.compaction.lag.ms=3600000 (what "
						+ "incremental-rebalance creates it with)");
		}
	}

	/**
	 * The decision every member reads in the epoch record stays small in a group of 100 000 tasks: its counts, the
	 * full line going to the leader's log only.
	 */
	@Test
	void epochRecordOfAHundredThousandTaskPlanStaysSmall() {
		List<Move> moves = new ArrayList<>();
		MemberPlanBuilder learner = MemberPlanBuilder.plan("b", "b1");
		for (int task = 0; task < 100_000; task++) {
			moves.add(new Move(new TaskId(task / 1_000, task % 1_000), Optional.of("a"), "b", "balance", 0));
			learner.learning((task / 1_000) + "_" + (task % 1_000), 5_000);
		}
		SortedMap<ProcessId, MemberPlan> members = new TreeMap<>(Map.of(new ProcessId(UUID.randomUUID()),
				learner.build()));
		Plan plan = new Plan(members, moves, List.of(), Optional.empty(), false, false, Set.of(), Set.of(), 0);
		Instant now = Instant.now();

		PlanEpoch epoch = new PlanEpoch(9, 8, "a", now, plan.summary(now, PlanPublisher.SUMMARY_LIMIT), List.of());

		assertThat(plan.explain(now).length()).as("the full line").isGreaterThan(1_000_000);
		assertThat(epoch.summary()).startsWith("moved 100000 task(s); learners 100000 (0 ready); waiting 0; leaving 0")
			.endsWith("in full in the leader's log (" + plan.explain(now).length() + " characters)");
		assertThat(ControlCodec.encodeValue(epoch).length).isLessThan(PlanPublisher.SUMMARY_LIMIT + 512);
	}

	@Test
	void replicationFactorTheClusterCannotMeetNamesTheTopicAndTheFix() {
		assertThatExceptionOfType(ControlTopicException.class)
			.isThrownBy(() -> ControlTopic.ensureExists(broker.admin(), "unreplicable-control", 3, true, TIMEOUT))
			.withMessageContaining("'unreplicable-control'")
			.withMessageContaining("replication factor 3")
			.withMessageContaining("Set Kafka Streams' replication.factor to at most the number of brokers");
	}

	@Test
	void missingTopicThatMayNotBeCreatedNamesTheSwitch() {
		assertThatExceptionOfType(ControlTopicException.class)
			.isThrownBy(() -> ControlTopic.ensureExists(broker.admin(), "absent-control", -1, false, TIMEOUT))
			.withMessageContaining("'absent-control' does not exist")
			.withMessageContaining("incremental.rebalance.control.topic.create");
	}

	@Test
	void readerSeesLeavesAndPlansSkipsMalformedRecordsAndHonoursTombstones() {
		String topic = "rw-control";
		ControlTopic.ensureExists(broker.admin(), topic, -1, true, TIMEOUT);
		Map<String, Object> streamsConfig = Map.of("application.id", "rw", "bootstrap.servers",
				broker.bootstrapServers(), "num.stream.threads", 2);
		Instant now = Instant.now();
		try (ControlTopicWriter writer = new ControlTopicWriter(streamsConfig, topic)) {
			writer.write(LeaveRecord.request("s1", "old1", now, Optional.empty(), "cli")).join();
			writeRaw(topic, "leave/s2/x", "this is not JSON");
			writeRaw(topic, "nonsense", "{\"v\":1}");
			LeaveRecord s3 = LeaveRecord.request("s3", "inc3", now.truncatedTo(ChronoUnit.MILLIS),
					Optional.of(Duration.ofSeconds(30)), "endpoint");
			writer.write(s3).join();
			writer.tombstone(LeaveRecord.keyOf("s1", "old1")).join();

			try (ControlTopicReader reader = new ControlTopicReader(streamsConfig, topic);
					LogCapture log = LogCapture.of(ControlTopicView.class)) {
				reader.start();
				assertThat(reader.awaitCaughtUp(TIMEOUT)).isTrue();
				assertThat(log.messages(Level.WARN)).singleElement()
					.satisfies((warn) -> assertThat(warn).contains("offset 1").contains("'leave/s2/x' is not JSON"));
				// a key of no kind this version knows: a newer version's, skipped with a word, not a warning
				assertThat(log.messages(Level.INFO))
					.anySatisfy((info) -> assertThat(info).contains("kind 'nonsense'").contains("first at offset 2"));
				assertThat(reader.leaveRequests())
					.containsExactly(new LeaveRequest("s3", "inc3", s3.leaveId(),
							Optional.of(now.truncatedTo(ChronoUnit.MILLIS).plusSeconds(30))));

				writer.publishPlan(List.<ControlRecord>of(
						MemberPlanBuilder.plan("s3", "inc3").beingLearned("0_1").leaving(s3.leaveId())
							.record(7),
						new PlanEpoch(7, 6, "s1", Instant.ofEpochMilli(7), "moved none", List.of())), List.of(),
						() -> false);
				await().atMost(TIMEOUT).until(() -> reader.plan("s3", "inc3").isPresent());
				assertThat(reader.plan("s3", "inc3").orElseThrow().plan().beingLearned()).containsExactly(new TaskId(0, 1));
				assertThat(reader.plan("s3", "inc2")).as("the plan of another start").isEmpty();
				assertThat(reader.planEpoch().orElseThrow().leader()).isEqualTo("s1");

				writer.write(s3.cancel("cli")).join();
				await("a cancelled leave is no request").atMost(TIMEOUT).until(() -> reader.leaveRequests().isEmpty());
				assertThat(reader.leaveRecord("s3")).hasValueSatisfying((leave) -> assertThat(leave.cancelled()).isTrue());
				writer.tombstone(LeaveRecord.keyOf("s3", "inc3")).join();
				await().atMost(TIMEOUT).until(() -> reader.leaveRecord("s3").isEmpty());
			}
		}
	}

	/**
	 * A control topic deleted and created again: the reader says so until it has read the new topic, and from the
	 * first moment it has no problem (what health and a leave go by) its view is the new topic's and stays so: it reads
	 * the new topic once. It once took the deleted topic's id, which the probe still held, for the id of the new one,
	 * read it a second time when the probe described it, and health went up and down again between.
	 */
	@Test
	void readerReportsAControlTopicItCannotReadAndReadsAgainOnceItIsBack() throws Exception {
		String topic = "fragile-control";
		Map<String, Object> streamsConfig = applicationWithControlTopic("fragile", topic);
		try (ControlTopicReader reader = new ControlTopicReader(streamsConfig, topic);
				ControlTopicWriter writer = new ControlTopicWriter(streamsConfig, topic)) {
			reader.start();
			assertThat(reader.awaitCaughtUp(TIMEOUT)).isTrue();
			assertThat(reader.problem()).isEmpty();
			LeaveRecord gone = LeaveRecord.request("s8", "i8", Instant.now().truncatedTo(ChronoUnit.MILLIS),
					Optional.empty(), "cli");
			writer.write(gone).get(30, TimeUnit.SECONDS);
			await().atMost(TIMEOUT).until(() -> reader.leaveRecord("s8").isPresent() && reader.topicId().isPresent());

			try (LogCapture log = LogCapture.of(ControlTopicReader.class)) {
				broker.admin().deleteTopics(List.of(topic)).all().get();

				await("the reader reports the topic it cannot read").atMost(Duration.ofSeconds(45))
					.until(() -> reader.problem().isPresent());
				assertThat(reader.problem().orElseThrow()).contains("control topic fragile-control cannot be read");

				ControlTopic.ensureExists(broker.admin(), topic, -1, true, TIMEOUT);
				LeaveRecord leave = LeaveRecord.request("s9", "i9", Instant.now().truncatedTo(ChronoUnit.MILLIS),
						Optional.empty(), "cli");
				writer.write(leave).get(30, TimeUnit.SECONDS);
				AtomicReference<Map<String, LeaveRecord>> firstFineView = new AtomicReference<>();
				await("read again, without a restart").atMost(Duration.ofSeconds(45))
					.pollInterval(Duration.ofMillis(1))
					.until(() -> {
						if (!fine(reader)) {
							return false;
						}
						firstFineView.set(reader.leaveRecords());
						return true;
					});
				assertThat(firstFineView.get()).as("the view once the reader has no problem").containsKey("s9")
					.doesNotContainKey("s8");
				// longer than it took the reader to notice the probe's next answer and start over
				await("no problem again").during(Duration.ofSeconds(1))
					.atMost(Duration.ofSeconds(5))
					.pollInterval(Duration.ofMillis(1))
					.until(() -> fine(reader));
				assertThat(reader.leaveRecord("s9")).contains(leave);
				assertThat(log.messages(Level.WARN)).as("the topic is read again once")
					.filteredOn((message) -> message.contains("again from its beginning"))
					.hasSize(1);
			}
		}
	}

	private static boolean fine(ControlTopicReader reader) {
		return reader.problem().isEmpty() && reader.unavailable().isEmpty();
	}

	@Test
	void leaderForgetsLeaveRecordsOfMemberStartsAbsentForLongOnItsOwnClockNotByTheirAge() {
		String topic = "gone-control";
		Map<String, Object> streamsConfig = applicationWithControlTopic("gone", topic);
		Instant now = Instant.now();
		MutableClock leaderClock = new MutableClock(now);
		try (ControlTopicWriter writer = new ControlTopicWriter(streamsConfig, topic);
				ControlTopicReader reader = new ControlTopicReader(streamsConfig, topic)) {
			Instant longAgo = now.minus(Duration.ofHours(2));
			writer.write(LeaveRecord.request("crashed", "c1", longAgo, Optional.empty(), "cli")).join();
			writer.write(LeaveRecord.request("long-drain", "d1", longAgo, Optional.empty(), "cli")).join();
			writer.write(LeaveRecord.request("restarted", "r1", now, Optional.empty(), "cli")).join();
			reader.start();
			await().atMost(TIMEOUT).until(() -> reader.leaveRecords().size() == 3);
			PlanPublisher publisher = new PlanPublisher(writer, reader, "leader", LearnerConfig.DEFAULT_LEAVE_RECORD_RETENTION,
					leaderClock, OptionalLong::empty);

			try (LogCapture log = LogCapture.of(ControlHousekeeping.class)) {
				publish(publisher, planOf(member("restarted", "r2")), 1);
				assertThat(log.messages(Level.WARN)).singleElement().asString()
					.contains("Ignoring the leave request of restarted for its start r1: it runs start r2 now");
			}
			leaderClock.advance(Duration.ofMinutes(5));
			publish(publisher, planOf(member("restarted", "r2"), member("long-drain", "d1")), 2);
			leaderClock.advance(Duration.ofMinutes(6));
			publish(publisher, planOf(member("restarted", "r2")), 3);

			await("the leaves of starts absent for 11 minutes forgotten").atMost(TIMEOUT)
				.until(() -> reader.leaveRecord("crashed").isEmpty() && reader.leaveRecord("restarted").isEmpty());
			assertThat(reader.leaveRecord("long-drain"))
				.as("asked two hours ago, absent for a moment only: a long drain keeps its leave")
				.isPresent();
		}
	}

	/**
	 * Instance b restarted (start b2) and was asked to leave; then the writes of its earlier start b1 land late: the
	 * record of how b1's leave ended (written as it closed, held up by a slow link) and the tombstone a leader's
	 * housekeeping wrote for b1, gone for long. Neither erases b2's leave, for a reader that follows the topic nor for
	 * one that starts reading it afterwards.
	 */
	@Test
	void lateWritesAboutAnEarlierStartNeverEraseTheLeaveOfTheStartThatRunsNow() {
		String topic = "late-writes-control";
		Map<String, Object> streamsConfig = applicationWithControlTopic("late-writes", topic);
		Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
		LeaveRecord earlier = LeaveRecord.request("b", "b1", now.minusSeconds(60), Optional.empty(), "endpoint");
		LeaveRecord current = LeaveRecord.request("b", "b2", now, Optional.of(Duration.ofMinutes(5)), "cli");
		try (ControlTopicWriter writer = new ControlTopicWriter(streamsConfig, topic);
				ControlTopicReader following = new ControlTopicReader(streamsConfig, topic)) {
			following.start();
			writer.write(earlier).join();
			writer.write(current).join();
			writer.write(earlier.endedAs(new LeaveRecord.Ended("drained", "learners-ready", 0))).join();
			writer.tombstone(earlier.key()).join();
			writer.write(new RejoinRequest("marker", "m1", 1, "after the late writes", now)).join();

			await().atMost(TIMEOUT).until(() -> following.view().rejoinRequests().containsKey("marker"));
			try (ControlTopicReader fresh = new ControlTopicReader(streamsConfig, topic)) {
				fresh.start();
				assertThat(fresh.awaitCaughtUp(TIMEOUT)).isTrue();
				for (ControlTopicReader reader : List.of(following, fresh)) {
					assertThat(reader.leaveRecord("b", "b2")).contains(current);
					assertThat(reader.leaveRecord("b", "b1")).as("the tombstone of the earlier start").isEmpty();
					assertThat(reader.leaveRecord("b")).contains(current);
					assertThat(reader.leaveRequests()).extracting(LeaveRequest::leaveId)
						.containsExactly(current.leaveId());
				}
			}
		}
	}

	@Test
	void aLateWriteOfAFormerLeaderNeverReplacesTheCurrentPlanAndTwoStartsOfOneIdKeepTheirOwnPlans() {
		String topic = "generations-control";
		Map<String, Object> streamsConfig = applicationWithControlTopic("generations", topic);
		try (ControlTopicWriter writer = new ControlTopicWriter(streamsConfig, topic);
				ControlTopicReader reader = new ControlTopicReader(streamsConfig, topic)) {
			reader.start();
			PlanPublisher leader = new PlanPublisher(writer, reader, "leader", LearnerConfig.DEFAULT_LEAVE_RECORD_RETENTION,
					Clock.systemUTC(), OptionalLong::empty);
			publish(leader, planOf(member("a", "a1", "0_1"), member("twin", "t1", "0_2"), member("twin", "t2", "0_3")), 8);
			await().atMost(TIMEOUT).until(() -> reader.planEpoch().map(PlanEpoch::generation).equals(Optional.of(8)));
			assertThat(reader.plan("twin", "t1").orElseThrow().plan().active()).as("one id, two starts: two plans")
				.containsExactly(new TaskId(0, 2));
			assertThat(reader.plan("twin", "t2").orElseThrow().plan().active()).containsExactly(new TaskId(0, 3));

			try (LogCapture log = LogCapture.of(ControlTopicView.class)) {
				// a former leader's plan of generation 7 arrives late; its clock is a minute ahead
				writer.publishPlan(List.of(
						MemberPlanBuilder.plan("a", "a1").active("0_9").record(7),
						new PlanEpoch(7, 6, "former", Instant.now().plusSeconds(60), "moved 0_9", List.of())),
						List.of(), () -> false);
				await().atMost(TIMEOUT).until(() -> !log.messages(Level.WARN).isEmpty());
				assertThat(log.messages(Level.WARN)).singleElement().asString()
					.contains("Ignoring the plan of generation 7 by former")
					.contains("the plan of generation 8 by leader replaced it");
			}
			assertThat(reader.planEpoch().orElseThrow().leader()).isEqualTo("leader");
			assertThat(reader.plan("a", "a1").orElseThrow().plan().active()).containsExactly(new TaskId(0, 1));

			publish(leader, planOf(member("a", "a1", "0_1", "0_3"), member("twin", "t1", "0_2")), 9);
			await("the plan of a start no longer in the group removed").atMost(TIMEOUT)
				.until(() -> !reader.view().planKeys().contains("plan/twin/t2"));
			assertThat(reader.plans()).extracting(PlanRecord::key).containsExactly("plan/a/a1", "plan/twin/t1");
		}
	}

	/**
	 * A former leader's plan of generation 7, with the tombstones of its housekeeping (computed from its old view:
	 * the plan of a start that joined since), lands after the current leader's plan of generation 8: readers change
	 * nothing, and the current leader writes its plan again, so that what compaction keeps of each key, the records
	 * a member that starts later or the command line reads, is the current plan.
	 */
	@Test
	void aFormerLeadersLateTombstonesEraseNothingAndTheCurrentLeaderWritesItsPlanAgain() {
		String topic = "late-writes-control";
		Map<String, Object> streamsConfig = applicationWithControlTopic("late-writes", topic);
		try (ControlTopicWriter writer = new ControlTopicWriter(streamsConfig, topic);
				ControlTopicWriter formerWriter = new ControlTopicWriter(streamsConfig, topic);
				ControlTopicReader reader = new ControlTopicReader(streamsConfig, topic)) {
			writer.mendLateWritesReadBy(reader);
			reader.start();
			PlanPublisher leader = new PlanPublisher(writer, reader, "leader", LearnerConfig.DEFAULT_LEAVE_RECORD_RETENTION,
					Clock.systemUTC(), OptionalLong::empty);
			publish(leader, planOf(member("a", "a1", "0_1"), member("joined", "j1", "0_2")), 8);
			await().atMost(TIMEOUT).until(() -> reader.plans().size() == 2);

			try (LogCapture log = LogCapture.of(ControlTopicView.class)) {
				formerWriter.publishPlan(List.of(MemberPlanBuilder.plan("a", "a1").active("0_1", "0_2").record(7),
						new PlanEpoch(7, 6, "former", Instant.now(), "moved 0_2", List.of())),
						List.of(PlanRecord.keyOf("joined", "j1")), () -> false);
				await().atMost(TIMEOUT).until(() -> log.messages(Level.WARN).size() == 2);
				assertThat(log.messages(Level.WARN)).last().asString()
					.contains("Ignoring the tombstone of plan/joined/j1")
					.contains("written with the plan of generation 7: the plan of generation 8 by leader replaced it");
			}
			assertThat(reader.plan("joined", "j1")).as("the current plan of a start that joined since").isPresent();

			await("the current plan written again, after the late write").atMost(TIMEOUT).untilAsserted(() -> {
				Map<String, Optional<ControlRecord>> last = lastRecordOfEachKey(topic);
				assertThat(last.get(PlanEpoch.KEY)).get()
					.isInstanceOfSatisfying(PlanEpoch.class, (epoch) -> assertThat(epoch.generation()).isEqualTo(8));
				assertThat(last.get(PlanRecord.keyOf("joined", "j1"))).get()
					.isInstanceOfSatisfying(PlanRecord.class, (plan) -> assertThat(plan.generation()).isEqualTo(8));
				assertThat(last.get(PlanRecord.keyOf("a", "a1"))).get()
					.isInstanceOfSatisfying(PlanRecord.class, (plan) -> assertThat(plan.generation()).isEqualTo(8));
			});
		}
	}

	/**
	 * A plan that could not be published is tried again, but not once a newer plan was read: the former leader of a
	 * partition that heals drops its plan instead of writing it over the current one.
	 */
	@Test
	void aPlanThatFailedIsDroppedOnceANewerOneWasRead() throws Exception {
		String topic = "superseded-control";
		Map<String, Object> streamsConfig = applicationWithControlTopic("superseded", topic);
		AtomicReference<Boolean> newerRead = new AtomicReference<>(false);
		try (FaultProxy link = new FaultProxy(broker.bootstrapServers());
				ControlTopicWriter former = new ControlTopicWriter(Map.of("application.id", "superseded",
						"bootstrap.servers", link.address()), topic);
				ControlTopicReader reader = new ControlTopicReader(streamsConfig, topic)) {
			reader.start();
			PlanRecord stale = MemberPlanBuilder.plan("a", "a1").active("0_9").record(7);
			former.publishPlan(List.of(stale, new PlanEpoch(7, 6, "former", Instant.now(), "", List.of())), List.of(),
					newerRead::get);
			await("the publication failed").atMost(TIMEOUT).until(() -> former.problem().isPresent());
			newerRead.set(true);
			try (LogCapture log = LogCapture.of(ControlTopicWriter.class)) {
				link.open();
				await().atMost(TIMEOUT).until(() -> log.messages(Level.INFO).stream()
					.anyMatch((line) -> line.contains("Not publishing the plan of generation 7")));
			}
			assertThat(former.problem()).as("nothing left to publish").isEmpty();
			assertThat(lastRecordOfEachKey(topic)).doesNotContainKey(PlanEpoch.KEY);
		}
	}

	/**
	 * A leader's round planned, but its rebalance failed (that generation never completed); the next round fell back
	 * to Kafka's assignor: the completed generation gets no plan, not the earlier round's.
	 */
	@Test
	void aRoundWithoutAPlanNeverPublishesThePlanOfAnEarlierRoundWhoseGenerationDidNotComplete() {
		String topic = "fallback-control";
		Map<String, Object> streamsConfig = applicationWithControlTopic("fallback", topic);
		try (ControlTopicWriter writer = new ControlTopicWriter(streamsConfig, topic);
				ControlTopicReader reader = new ControlTopicReader(streamsConfig, topic)) {
			reader.start();
			PlanPublisher leader = new PlanPublisher(writer, reader, "leader", LearnerConfig.DEFAULT_LEAVE_RECORD_RETENTION,
					Clock.systemUTC(), OptionalLong::empty);
			publish(leader, planOf(member("a", "a1", "0_1")), 4);
			await().atMost(TIMEOUT).until(() -> reader.planEpoch().map(PlanEpoch::generation).equals(Optional.of(4)));

			leader.onPlan(planOf(member("a", "a1", "0_2")), AssignmentError.NONE);
			leader.onNoPlan();
			leader.generationCompleted(6);
			// the topic has one partition: once a record written after the round is read, so is all the round wrote
			writer.write(new RejoinRequest("marker", "m1", 6, "after the round", Instant.now())).join();
			await().atMost(TIMEOUT).until(() -> reader.view().rejoinRequests().containsKey("marker"));

			assertThat(reader.planEpoch().orElseThrow().generation()).as("no plan for generation 6").isEqualTo(4);
			assertThat(reader.plan("a", "a1").orElseThrow().plan().active()).containsExactly(new TaskId(0, 1));
		}
	}

	/**
	 * A leader planned a round, then its link was slow or it paused: the coordinator removed it before its SyncGroup
	 * came, the others completed the round without it, and it joined again as a follower of another leader. The
	 * generation its consumer completes next is the other leader's: its own plan, computed before it joined again,
	 * is not published under it (it used to be, overwriting the real leader's plan with learners no assignment made).
	 */
	@Test
	void aPlanComputedBeforeTheConsumerJoinedAgainIsNotPublishedUnderTheNextGeneration() {
		String topic = "rejoined-control";
		Map<String, Object> streamsConfig = applicationWithControlTopic("rejoined", topic);
		AtomicLong joins = new AtomicLong(3);
		try (ControlTopicWriter writer = new ControlTopicWriter(streamsConfig, topic);
				ControlTopicReader reader = new ControlTopicReader(streamsConfig, topic)) {
			reader.start();
			PlanPublisher slowLeader = new PlanPublisher(writer, reader, "slow", LearnerConfig.DEFAULT_LEAVE_RECORD_RETENTION,
					Clock.systemUTC(), () -> OptionalLong.of(joins.get()));
			publish(slowLeader, planOf(member("a", "a1", "0_1")), 4);
			await().atMost(TIMEOUT).until(() -> reader.planEpoch().map(PlanEpoch::generation).equals(Optional.of(4)));

			slowLeader.onPlan(planOf(member("a", "a1", "0_2")), AssignmentError.NONE);
			joins.incrementAndGet();
			try (LogCapture log = LogCapture.of(PlanPublisher.class)) {
				slowLeader.generationCompleted(6);
				assertThat(log.messages(Level.INFO)).singleElement().asString()
					.contains("Not publishing the plan slow computed as leader of a round that did not complete")
					.contains("generation 6 is another leader's");
			}
			writer.write(new RejoinRequest("marker", "m1", 6, "after the round", Instant.now())).join();
			await().atMost(TIMEOUT).until(() -> reader.view().rejoinRequests().containsKey("marker"));
			assertThat(reader.planEpoch().orElseThrow().generation()).as("no plan of the slow leader for generation 6")
				.isEqualTo(4);
			assertThat(reader.plan("a", "a1").orElseThrow().plan().active()).containsExactly(new TaskId(0, 1));

			publish(slowLeader, planOf(member("a", "a1", "0_3")), 7);
			await("a round it led and completed is published").atMost(TIMEOUT)
				.until(() -> reader.planEpoch().map(PlanEpoch::generation).equals(Optional.of(7)));
			assertThat(reader.plan("a", "a1").orElseThrow().plan().active()).containsExactly(new TaskId(0, 3));
		}
	}

	/**
	 * A cancel of another member's leave says what came of it, in the member's own words: it stayed (a later plan no
	 * longer acts on the leave), it was handing over (its end lands after the cancel), it had left just before (its end
	 * landed first: the cancel replaced it, so it is written again), or it has not answered within the wait.
	 */
	@Test
	void aCancelOfAnotherMembersLeaveSaysWhetherTheMemberStayedOrHadLeft() throws Exception {
		String topic = "cancel-control";
		Map<String, Object> streamsConfig = applicationWithControlTopic("cancel", topic);
		LeaveRecord.Ended drained = new LeaveRecord.Ended("drained", "learners-ready", 0);
		try (ControlTopicWriter writer = new ControlTopicWriter(streamsConfig, topic);
				ControlTopicReader reader = new ControlTopicReader(streamsConfig, topic)) {
			reader.start();
			LeaveCancel cancels = new LeaveCancel(reader, writer);
			AtomicInteger generation = new AtomicInteger();

			LeaveRecord stays = pendingLeave(writer, reader, "stays", generation.incrementAndGet());
			CompletableFuture<LeaveCancel.Result> stayed = CompletableFuture
				.supplyAsync(() -> cancels.cancel(stays, "test", TIMEOUT));
			await("the cancel on the topic").atMost(TIMEOUT)
				.until(() -> reader.leaveRecord("stays", "s1").map(LeaveRecord::cancelled).orElse(false));
			publishPlan(writer, MemberPlanBuilder.plan("stays", "s1").active("0_1").record(generation.incrementAndGet()));
			assertThat(stayed.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
				.isEqualTo(LeaveCancel.Result.of(LeaveCancel.Answer.CANCELLED));

			LeaveRecord handsOver = pendingLeave(writer, reader, "hands-over", generation.incrementAndGet());
			CompletableFuture<LeaveCancel.Result> tooLate = CompletableFuture
				.supplyAsync(() -> cancels.cancel(handsOver, "test", TIMEOUT));
			await("the cancel on the topic").atMost(TIMEOUT)
				.until(() -> reader.leaveRecord("hands-over", "s1").map(LeaveRecord::cancelled).orElse(false));
			writer.write(handsOver.endedAs(drained)).join();
			assertThat(tooLate.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
				.isEqualTo(new LeaveCancel.Result(LeaveCancel.Answer.LEFT_FIRST, Optional.of(drained)));

			LeaveRecord left = pendingLeave(writer, reader, "left", generation.incrementAndGet());
			// the member's end lands between the read that found the leave pending and the cancel
			ControlWriter endFirst = new ControlWriter() {

				@Override
				public CompletableFuture<?> write(ControlRecord record) {
					if (record instanceof LeaveRecord leave && leave.cancelled()) {
						writer.write(left.endedAs(drained)).join();
					}
					return writer.write(record);
				}

				@Override
				public CompletableFuture<?> tombstone(String key) {
					return writer.tombstone(key);
				}

				@Override
				public Duration acknowledgementWait() {
					return writer.acknowledgementWait();
				}

			};
			assertThat(new LeaveCancel(reader, endFirst).cancel(left, "test", TIMEOUT))
				.isEqualTo(new LeaveCancel.Result(LeaveCancel.Answer.LEFT_FIRST, Optional.of(drained)));
			await("how the leave ended, written again after the cancel that replaced it").atMost(TIMEOUT)
				.until(() -> reader.leaveRecord("left", "s1").flatMap(LeaveRecord::ended).isPresent());
			assertThat(reader.leaveRecord("left", "s1").orElseThrow().cancelled()).isFalse();

			LeaveRecord silent = pendingLeave(writer, reader, "silent", generation.incrementAndGet());
			assertThat(cancels.cancel(silent, "test", Duration.ofSeconds(1)))
				.isEqualTo(LeaveCancel.Result.of(LeaveCancel.Answer.UNANSWERED));
			assertThat(reader.leaveRecord("silent", "s1").map(LeaveRecord::cancelled)).as("the cancel stands")
				.contains(true);
		}
	}

	/**
	 * A member start {@code s1} asked to leave, with a plan that acts on it, as read.
	 */
	private static LeaveRecord pendingLeave(ControlTopicWriter writer, ControlTopicReader reader, String instanceId,
			int generation) {
		LeaveRecord leave = LeaveRecord.request(instanceId, "s1", Instant.now(), Optional.empty(), "test");
		writer.write(leave).join();
		publishPlan(writer, MemberPlanBuilder.plan(instanceId, "s1")
			.active("0_1")
			.leaving(leave.leaveId())
			.record(generation));
		await().atMost(TIMEOUT).until(() -> reader.plan(instanceId, "s1").isPresent()
				&& reader.leaveRecord(instanceId, "s1").filter(LeaveRecord::pending).isPresent());
		return leave;
	}

	private static void publishPlan(ControlTopicWriter writer, PlanRecord plan) {
		writer.publishPlan(List.of(plan, new PlanEpoch(plan.generation(), plan.generation() - 1, "leader", Instant.now(),
				"", List.of())), List.of(), () -> false);
	}

	/**
	 * The plan of a round published while the cluster cannot be reached (the leader's link is down, the control topic
	 * cut): the group may not rebalance again for a long time, so the plan is tried again until it lands, instead of
	 * being dropped with the leave it hands over waiting for good.
	 */
	@Test
	void aPlanThatCouldNotBePublishedIsTriedAgainUntilItLands() throws Exception {
		String topic = "retry-control";
		Map<String, Object> streamsConfig = applicationWithControlTopic("retry", topic);
		try (FaultProxy link = new FaultProxy(broker.bootstrapServers());
				ControlTopicWriter writer = new ControlTopicWriter(Map.of("application.id", "retry",
						"bootstrap.servers", link.address()), topic);
				ControlTopicReader reader = new ControlTopicReader(streamsConfig, topic)) {
			reader.start();
			try (LogCapture log = LogCapture.of(ControlTopicWriter.class)) {
				publishPlan(writer, MemberPlanBuilder.plan("a", "a1").active("0_1").record(7));
				await("the publication failed").atMost(TIMEOUT).until(() -> writer.problem().isPresent());
				assertThat(log.messages(Level.WARN)).singleElement().asString()
					.contains("the last plan could not be published to retry-control")
					.contains("trying again until it is, or a newer plan replaces it (after PT1S");
			}
			link.open();
			await("the plan on the topic once the cluster answers").atMost(TIMEOUT)
				.until(() -> reader.planEpoch().map(PlanEpoch::generation).equals(Optional.of(7)));
			assertThat(reader.plan("a", "a1").orElseThrow().plan().active()).containsExactly(new TaskId(0, 1));
			await().atMost(TIMEOUT).until(() -> writer.problem().isEmpty());
		}
	}

	@Test
	void theNextAssignmentKnowsThePlanOfTheGenerationCompletedLastAndNoneOfAnEarlierOne() {
		String topic = "previous-control";
		Map<String, Object> streamsConfig = applicationWithControlTopic("previous", topic);
		try (ControlTopicWriter writer = new ControlTopicWriter(streamsConfig, topic);
				ControlTopicReader ofLeader = new ControlTopicReader(streamsConfig, topic);
				ControlTopicReader ofFollower = new ControlTopicReader(streamsConfig, topic)) {
			ofLeader.start();
			ofFollower.start();
			PlanPublisher leader = new PlanPublisher(writer, ofLeader, "leader", LearnerConfig.DEFAULT_LEAVE_RECORD_RETENTION,
					Clock.systemUTC(), OptionalLong::empty);
			PlanPublisher follower = new PlanPublisher(writer, ofFollower, "follower", LearnerConfig.DEFAULT_LEAVE_RECORD_RETENTION,
					Clock.systemUTC(), OptionalLong::empty);
			assertThat(leader.previousPlan().members()).as("before any generation").isEmpty();

			Plan plan = planOf(member("a", "a1", "0_1"), member("b", "b1", "0_2"));
			publish(leader, plan, 4);
			assertThat(leader.previousPlan().members()).as("the plan it published, before its records come back")
				.containsExactlyInAnyOrderElementsOf(plan.members().values());
			follower.generationCompleted(4);
			await("the follower read the plan of generation 4").atMost(TIMEOUT)
				.until(() -> !follower.previousPlan().members().isEmpty());
			assertThat(follower.previousPlan().members()).as("as read from the topic")
				.containsExactlyInAnyOrderElementsOf(plan.members().values());

			// generation 5 completed without a plan of the learner assignor (its rebalance failed)
			follower.generationCompleted(5);
			leader.generationCompleted(5);
			assertThat(follower.previousPlan().members()).as("generation 4's plan is not the previous plan of generation 6").isEmpty();
			assertThat(leader.previousPlan().members()).isEmpty();
		}
	}

	@Test
	void listenersHearOfRecordsWrittenAfterTheReadStartedNotOfTheHistoryReadAgain() {
		String topic = "news-control";
		Map<String, Object> streamsConfig = applicationWithControlTopic("news", topic);
		List<String> heard = new CopyOnWriteArrayList<>();
		try (ControlTopicWriter writer = new ControlTopicWriter(streamsConfig, topic)) {
			writer.write(new RejoinRequest("old", "o1", 3, "before the reader started", Instant.now())).join();
			try (ControlTopicReader reader = new ControlTopicReader(streamsConfig, topic)) {
				reader.addListener((record) -> heard.add(record.key()));
				reader.start();
				assertThat(reader.awaitCaughtUp(TIMEOUT)).isTrue();
				writer.write(new RejoinRequest("new", "n1", 4, "after", Instant.now())).join();
				await().atMost(TIMEOUT).until(() -> heard.contains("rejoin/new"));
				assertThat(reader.view().rejoinRequests()).containsKeys("old", "new");

				reader.close();
				reader.start();
				assertThat(reader.awaitCaughtUp(TIMEOUT)).isTrue();
				writer.write(new RejoinRequest("newer", "w1", 5, "after the restart", Instant.now())).join();
				await().atMost(TIMEOUT).until(() -> heard.contains("rejoin/newer"));
			}
		}
		assertThat(heard).as("the history, read at each start, is not news").containsExactly("rejoin/new", "rejoin/newer");
	}

	/**
	 * The Streams config of an application whose control topic exists, compacted, on the test broker.
	 */
	private static Map<String, Object> applicationWithControlTopic(String applicationId, String topic) {
		ControlTopic.ensureExists(broker.admin(), topic, -1, true, TIMEOUT);
		return Map.of("application.id", applicationId, "bootstrap.servers", broker.bootstrapServers());
	}

	/**
	 * As a leader's stream thread does: the plan computed in the assignment, published once the generation completed.
	 */
	private static void publish(PlanPublisher publisher, Plan plan, int generation) {
		publisher.onPlan(plan, AssignmentError.NONE);
		publisher.generationCompleted(generation);
	}

	private static MemberPlan member(String instanceId, String incarnation, String... active) {
		return MemberPlanBuilder.plan(instanceId, incarnation).active(active).build();
	}

	private static Plan planOf(MemberPlan... members) {
		SortedMap<ProcessId, MemberPlan> byProcess = new TreeMap<>();
		for (MemberPlan member : members) {
			byProcess.put(new ProcessId(UUID.randomUUID()), member);
		}
		return new Plan(byProcess, List.of(), List.of(), Optional.empty(), false, false, Set.of(), Set.of(), 0);
	}

	/**
	 * What compaction keeps of the topic: the last record of each key, empty for a tombstone.
	 */
	private static Map<String, Optional<ControlRecord>> lastRecordOfEachKey(String topic) {
		Map<String, Optional<ControlRecord>> last = new HashMap<>();
		TopicPartition partition = new TopicPartition(topic, 0);
		try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
				Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), new ByteArrayDeserializer(),
				new ByteArrayDeserializer())) {
			consumer.assign(List.of(partition));
			consumer.seekToBeginning(List.of(partition));
			long end = consumer.endOffsets(List.of(partition)).get(partition);
			while (consumer.position(partition) < end) {
				for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
					String key = ControlCodec.decodeKey(record.key());
					last.put(key, ControlCodec.decode(key, record.value()));
				}
			}
		}
		return last;
	}

	private static void writeRaw(String topic, String key, String value) {
		try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
				Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), new ByteArraySerializer(),
				new ByteArraySerializer())) {
			producer.send(new ProducerRecord<>(topic, 0, key.getBytes(StandardCharsets.UTF_8),
					value.getBytes(StandardCharsets.UTF_8)));
		}
	}

}
