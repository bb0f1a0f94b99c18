package io.github.incrementalrebalance.testkit;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

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
		assertExactCounts(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers), outputTopic, expected,
				timeout);
	}

	/**
	 * Wait until the output shows exactly the expected count of every key.
	 * @param clientConfig how to reach the broker: bootstrap, and security on a secured one
	 * @param outputTopic the topology's output topic
	 * @param expected records sent per key
	 * @param timeout how long the topology may take to catch up
	 */
	public static void assertExactCounts(Map<String, Object> clientConfig, String outputTopic,
			Map<String, Long> expected, Duration timeout) {
		Mismatch mismatch = read(clientConfig, outputTopic, expected, timeout,
				(tally) -> (tally.under() == 0 && tally.over() == 0) || tally.over() > 0);
		if (!mismatch.wrong().isEmpty()) {
			throw new AssertionError(mismatch.wrong().size() + " of " + expected.size() + " keys have wrong counts, "
					+ "e.g. " + new TreeMap<>(mismatch.wrong()).entrySet().stream().limit(10).toList());
		}
	}

	/**
	 * Wait until the output shows exactly the expected count of every key, a key is counted too many times, or the
	 * timeout passed; say which keys are wrong then.
	 * @param bootstrapServers the broker
	 * @param outputTopic the topology's output topic
	 * @param expected records sent per key
	 * @param timeout how long the topology may take to catch up
	 * @return the keys with wrong counts, none when every count is exact
	 */
	public static Mismatch verify(String bootstrapServers, String outputTopic, Map<String, Long> expected,
			Duration timeout) {
		return read(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers), outputTopic, expected, timeout,
				(tally) -> (tally.under() == 0 && tally.over() == 0) || tally.over() > 0);
	}

	/**
	 * Wait until no key is counted fewer times than sent, or the timeout passed: what at-least-once processing
	 * promises, where records a member processed but had not committed are processed again.
	 * @param bootstrapServers the broker
	 * @param outputTopic the topology's output topic
	 * @param expected records sent per key
	 * @param timeout how long the topology may take to catch up
	 * @return the keys with wrong counts: those counted too often, and those still short at the timeout
	 */
	public static Mismatch verifyNoneLost(String bootstrapServers, String outputTopic, Map<String, Long> expected,
			Duration timeout) {
		return read(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers), outputTopic, expected, timeout,
				(tally) -> tally.under() == 0);
	}

	private static Mismatch read(Map<String, Object> clientConfig, String outputTopic, Map<String, Long> expected,
			Duration timeout, Predicate<Tally> done) {
		Map<String, Long> latest = new HashMap<>();
		Map<String, Object> config = new HashMap<>(clientConfig);
		config.putAll(Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
				ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest", ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000));
		try (KafkaConsumer<String, Long> consumer = new KafkaConsumer<>(config, new StringDeserializer(),
				new LongDeserializer())) {
			List<TopicPartition> partitions = consumer.partitionsFor(outputTopic).stream()
				.map((info) -> new TopicPartition(info.topic(), info.partition()))
				.toList();
			consumer.assign(partitions);
			consumer.seekToBeginning(partitions);
			long deadline = System.nanoTime() + timeout.toNanos();
			// kept up to date record by record: with hundreds of thousands of keys, counting them all again after
			// each poll would keep the reader from ever catching up with the output (and busy a core meanwhile)
			Tally tally = Tally.before(expected);
			while (true) {
				for (ConsumerRecord<String, Long> record : consumer.poll(Duration.ofMillis(200))) {
					tally.update(expected.get(record.key()), latest.put(record.key(), record.value()), record.value());
				}
				if (done.test(tally) || System.nanoTime() > deadline) {
					return new Mismatch(differences(expected, latest));
				}
			}
		}
	}

	/**
	 * How many keys are counted too few and too many times so far.
	 */
	private static final class Tally {

		/** Keys counted fewer times than sent. */
		private long under;

		/** Keys counted more times than sent, or never sent. */
		private long over;

		/**
		 * The tally before any output is read: every key sent is short (unless sent no times).
		 */
		static Tally before(Map<String, Long> expected) {
			Tally tally = new Tally();
			expected.values().forEach((sent) -> tally.count(sent, null, 1));
			return tally;
		}

		/**
		 * Move a key from where its previous count put it to where its new one puts it.
		 * @param sent how many records of the key were sent, null if none
		 * @param previous its previous count, null before its first
		 * @param counted its new count
		 */
		void update(Long sent, Long previous, Long counted) {
			count(sent, previous, -1);
			count(sent, counted, 1);
		}

		private void count(Long sent, Long counted, int delta) {
			switch (Count.of(sent, counted)) {
				case UNDER -> this.under += delta;
				case OVER -> this.over += delta;
				case EXACT -> {
				}
			}
		}

		long under() {
			return this.under;
		}

		long over() {
			return this.over;
		}

	}

	/**
	 * Keys whose count is wrong.
	 *
	 * @param wrong key to what is wrong with it ({@code under: ...} or {@code over: ...})
	 */
	public record Mismatch(Map<String, String> wrong) {

		public Mismatch {
			wrong = Map.copyOf(wrong);
		}

		/**
		 * Keys counted fewer times than sent: records lost.
		 * @return how many keys
		 */
		public long lost() {
			return this.wrong.values().stream().filter((what) -> what.startsWith("under")).count();
		}

		/**
		 * Keys counted more times than sent: records processed twice.
		 * @return how many keys
		 */
		public long duplicated() {
			return this.wrong.values().stream().filter((what) -> what.startsWith("over")).count();
		}

	}

	private static Map<String, String> differences(Map<String, Long> expected, Map<String, Long> actual) {
		Map<String, String> wrong = new HashMap<>();
		Set<String> keys = new HashSet<>(expected.keySet());
		keys.addAll(actual.keySet());
		for (String key : keys) {
			Long sent = expected.get(key);
			Long counted = actual.get(key);
			String what = "counted " + ((counted != null) ? counted : 0) + ", "
					+ ((sent != null) ? "sent " + sent : "never sent");
			switch (Count.of(sent, counted)) {
				case UNDER -> wrong.put(key, "under: " + what);
				case OVER -> wrong.put(key, "over: " + what);
				case EXACT -> {
				}
			}
		}
		return wrong;
	}

	/**
	 * How one key's latest count compares with what was sent of it: the one rule both the running tally and the final
	 * differences follow.
	 */
	private enum Count {

		EXACT, UNDER, OVER;

		/**
		 * @param sent how many records of the key were sent, null if none
		 * @param counted its latest count, null if none was read
		 */
		static Count of(Long sent, Long counted) {
			if (sent == null) {
				return (counted == null) ? EXACT : OVER;
			}
			long seen = (counted != null) ? counted : 0;
			return (seen < sent) ? UNDER : (seen > sent) ? OVER : EXACT;
		}

	}

}
