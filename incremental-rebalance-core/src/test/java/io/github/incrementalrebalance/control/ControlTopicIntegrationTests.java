package io.github.incrementalrebalance.control;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

import io.github.incrementalrebalance.assignor.LeaveRequest;
import io.github.incrementalrebalance.assignor.MemberPlan;
import io.github.incrementalrebalance.assignor.Plan;
import ch.qos.logback.classic.Level;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.LogCapture;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.AssignmentError;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The control topic on a real broker: created compacted with one partition, read from the beginning without a
 * consumer group, a malformed record skipped, a tombstone cancelling a leave.
 */
class ControlTopicIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	@RegisterExtension
	static final KafkaBroker broker = new KafkaBroker();

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
			writer.write(new LeaveRecord("s1", "old1", now, Optional.empty(), "cli")).join();
			writeRaw(topic, "leave/s2", "this is not JSON");
			writeRaw(topic, "nonsense", "{\"v\":1}");
			writer.write(new LeaveRecord("s3", "inc3", now, Optional.of(now.plusSeconds(30)), "endpoint")).join();
			writer.tombstone(LeaveRecord.keyOf("s1")).join();

			try (ControlTopicReader reader = new ControlTopicReader(streamsConfig, topic);
					LogCapture log = LogCapture.of(ControlTopicReader.class)) {
				reader.start();
				assertThat(reader.awaitCaughtUp(TIMEOUT)).isTrue();
				assertThat(log.messages(Level.WARN)).hasSize(2)
					.anySatisfy((warn) -> assertThat(warn).contains("offset 1").contains("'leave/s2' is not JSON"))
					.anySatisfy((warn) -> assertThat(warn).contains("offset 2").contains("unknown key 'nonsense'"));
				assertThat(reader.leaveRequests())
					.containsExactly(new LeaveRequest("s3", "inc3", Optional.of(now.plusSeconds(30).truncatedTo(
							ChronoUnit.MILLIS))));

				writer.publishPlan(List.<ControlRecord>of(
						new PlanRecord("s3", "inc3", 7, List.of("0_1"), Map.of(), List.of(), List.of("0_1"), List.of(), true,
								Optional.empty()),
						new PlanEpoch(7, "s1", Instant.ofEpochMilli(7), "moved none", List.of())), List.of());
				await().atMost(TIMEOUT).until(() -> reader.planEpoch().isPresent() && reader.plan("s3").isPresent());
				assertThat(reader.plan("s3").orElseThrow().beingLearned()).containsExactly("0_1");
				assertThat(reader.planEpoch().orElseThrow().leader()).isEqualTo("s1");

				writer.tombstone(LeaveRecord.keyOf("s3")).join();
				await().atMost(TIMEOUT).until(() -> reader.leaveRequests().isEmpty());
			}
		}
	}

	@Test
	void leaderForgetsLeaveRecordsOfMembersGoneForLong() {
		String topic = "gone-control";
		ControlTopic.ensureExists(broker.admin(), topic, -1, true, TIMEOUT);
		Map<String, Object> streamsConfig = Map.of("application.id", "gone", "bootstrap.servers",
				broker.bootstrapServers());
		Instant now = Instant.now();
		try (ControlTopicWriter writer = new ControlTopicWriter(streamsConfig, topic);
				ControlTopicReader reader = new ControlTopicReader(streamsConfig, topic)) {
			writer.write(new LeaveRecord("crashed", "c1", now.minus(Duration.ofMinutes(11)), Optional.empty(), "cli"))
				.join();
			writer.write(new LeaveRecord("recent", "r1", now.minus(Duration.ofMinutes(1)), Optional.empty(), "cli"))
				.join();
			reader.start();
			await().atMost(TIMEOUT).until(() -> reader.leaveRecords().size() == 2);

			MemberPlan restarted = new MemberPlan(new ProcessId(UUID.randomUUID()), "recent", "r2", new TreeSet<>(),
					new TreeMap<>(), new TreeSet<>(), new TreeSet<>(), false, Optional.empty());
			try (LogCapture log = LogCapture.of(PlanPublisher.class)) {
				new PlanPublisher(writer, reader, "leader", Clock.systemUTC()).onPlan(new Plan(List.of(restarted),
						List.of(), List.of(), Optional.empty(), false, false, Set.of()), AssignmentError.NONE);
				assertThat(log.messages(Level.WARN)).singleElement().asString()
					.contains("Ignoring the leave request of recent for its start r1: it runs start r2 now");
			}

			await("the long-gone member's leave forgotten").atMost(TIMEOUT)
				.until(() -> reader.leaveRecord("crashed").isEmpty());
			assertThat(reader.leaveRecord("recent")).isPresent();
		}
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
