package io.github.incrementalrebalance.testkit;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Checks that the topology counted every acknowledged input record exactly once: reads the committed output of the
 * {@link CountingTopology} and compares each key's latest count with what the {@link TrackingProducer} sent. A count
 * above the sent number means a record was processed twice and fails at once; a count below it waits until the
 * timeout.
 */
public final class ExactCountVerifier {

	private ExactCountVerifier() {
	}

	/**
	 * Wait until the output shows exactly the expected count of every key.
	 * @param bootstrapServers the broker
	 * @param outputTopic the topology's output topic
	 * @param expected records sent per key
	 * @param timeout how long the topology may take to catch up
	 */
	public static void assertExactCounts(String bootstrapServers, String outputTopic, Map<String, Long> expected,
			Duration timeout) {
		Map<String, Long> latest = new HashMap<>();
		try (KafkaConsumer<String, Long> consumer = new KafkaConsumer<>(
				Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
						ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
						ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest", ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
						10_000),
				new StringDeserializer(), new LongDeserializer())) {
			List<TopicPartition> partitions = consumer.partitionsFor(outputTopic).stream()
				.map((info) -> new TopicPartition(info.topic(), info.partition()))
				.toList();
			consumer.assign(partitions);
			consumer.seekToBeginning(partitions);
			long deadline = System.nanoTime() + timeout.toNanos();
			while (true) {
				for (ConsumerRecord<String, Long> record : consumer.poll(Duration.ofMillis(200))) {
					latest.put(record.key(), record.value());
				}
				Map<String, String> wrong = differences(expected, latest);
				if (wrong.isEmpty()) {
					return;
				}
				boolean overCounted = wrong.values().stream().anyMatch((d) -> d.startsWith("over"));
				if (overCounted || System.nanoTime() > deadline) {
					throw new AssertionError(wrong.size() + " of " + expected.size() + " keys have wrong counts, e.g. "
							+ new TreeMap<>(wrong).entrySet().stream().limit(10).toList());
				}
			}
		}
	}

	private static Map<String, String> differences(Map<String, Long> expected, Map<String, Long> actual) {
		Map<String, String> wrong = new HashMap<>();
		expected.forEach((key, count) -> {
			long seen = actual.getOrDefault(key, 0L);
			if (seen > count) {
				wrong.put(key, "over: counted " + seen + ", sent " + count);
			}
			else if (seen < count) {
				wrong.put(key, "under: counted " + seen + ", sent " + count);
			}
		});
		actual.keySet().stream()
			.filter((key) -> !expected.containsKey(key))
			.forEach((key) -> wrong.put(key, "over: counted " + actual.get(key) + ", never sent"));
		return wrong;
	}

}
