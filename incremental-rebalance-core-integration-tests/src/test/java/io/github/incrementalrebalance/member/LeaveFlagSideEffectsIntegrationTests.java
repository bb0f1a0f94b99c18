package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.TestTags;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Documents what else the consumer-wide {@code internal.leave.group.on.close=true} set by
 * {@link MemberClientSupplier} on Kafka 4.1 clients changes: {@code unsubscribe()} and an expired
 * {@code max.poll.interval.ms} now send a LeaveGroup too, so the member's partitions are freed at once. Kafka Streams'
 * own setting (false) leaves the member in the group until {@code session.timeout.ms}. From Kafka 4.2 the setting is
 * gone and every dynamic consumer leaves on both paths: the member's consumer behaves the same on every stack.
 */
@Tag(TestTags.BROKER)
@Tag(TestTags.CLIENT_LINE)
class LeaveFlagSideEffectsIntegrationTests {

	private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(6);

	private static final Duration MAX_POLL_INTERVAL = Duration.ofSeconds(1);

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@Test
	void unsubscribeLeavesTheGroupAtOnce() {
		broker.createTopics(2, "unsubscribe");
		try (Consumer<byte[], byte[]> member = memberConsumer("unsubscribe-member");
				Consumer<byte[], byte[]> streamsDefault = streamsDefaultConsumer("unsubscribe-streams-default")) {
			joinAndOwnPartitions(member, "unsubscribe");
			joinAndOwnPartitions(streamsDefault, "unsubscribe");

			member.unsubscribe();
			streamsDefault.unsubscribe();

			await("member supplier's consumer gone").atMost(SESSION_TIMEOUT.dividedBy(2))
				.until(() -> broker.groupMembers("unsubscribe-member").isEmpty());
			assertKafkaStreamsDefault("unsubscribe-streams-default");
		}
	}

	@Test
	void expiredPollIntervalLeavesTheGroupAtOnce() {
		broker.createTopics(2, "poll-timeout");
		try (Consumer<byte[], byte[]> member = memberConsumer("poll-timeout-member");
				Consumer<byte[], byte[]> streamsDefault = streamsDefaultConsumer("poll-timeout-streams-default")) {
			Instant lastPoll = joinAndOwnPartitions(member, "poll-timeout");
			joinAndOwnPartitions(streamsDefault, "poll-timeout");

			await("member supplier's consumer gone after its poll timeout").atMost(SESSION_TIMEOUT.dividedBy(2))
				.until(() -> broker.groupMembers("poll-timeout-member").isEmpty());
			Duration gone = Duration.between(lastPoll, Instant.now());
			assertThat(gone).isGreaterThanOrEqualTo(MAX_POLL_INTERVAL);
			assertKafkaStreamsDefault("poll-timeout-streams-default");
		}
	}

	private static void assertKafkaStreamsDefault(String groupId) {
		if (ClientCapabilities.detected().needsInternalLeaveSetting()) {
			assertThat(broker.groupMembers(groupId))
				.as("Kafka 4.1: with Kafka Streams' setting the member stays until the session times out")
				.hasSize(1);
		}
		else {
			await("Kafka 4.2 and later: a dynamic consumer leaves without any setting")
				.atMost(SESSION_TIMEOUT.dividedBy(2))
				.until(() -> broker.groupMembers(groupId).isEmpty());
		}
	}

	private static Consumer<byte[], byte[]> memberConsumer(String groupId) {
		return new MemberClientSupplier().getConsumer(config(groupId));
	}

	private static Consumer<byte[], byte[]> streamsDefaultConsumer(String groupId) {
		Map<String, Object> config = config(groupId);
		if (ClientCapabilities.detected().needsInternalLeaveSetting()) {
			config.put(MemberClientSupplier.LEAVE_GROUP_ON_CLOSE_CONFIG, false);
		}
		return new PlainKafkaClients().getConsumer(config);
	}

	private static Map<String, Object> config(String groupId) {
		Map<String, Object> config = new HashMap<>();
		config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
		config.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
		config.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 500);
		config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, (int) SESSION_TIMEOUT.toMillis());
		config.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, (int) MAX_POLL_INTERVAL.toMillis());
		return config;
	}

	/**
	 * Poll until the consumer owns partitions.
	 * @return when the last poll was entered: {@code max.poll.interval.ms} counts from there
	 */
	private static Instant joinAndOwnPartitions(Consumer<byte[], byte[]> consumer, String topic) {
		consumer.subscribe(List.of(topic));
		AtomicReference<Instant> lastPoll = new AtomicReference<>();
		await("partitions assigned").atMost(Duration.ofSeconds(30)).until(() -> {
			Instant entered = Instant.now();
			consumer.poll(Duration.ofMillis(100));
			lastPoll.set(entered);
			return !consumer.assignment().isEmpty();
		});
		return lastPoll.get();
	}

}
