package io.github.incrementalrebalance.testkit;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntPredicate;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

import static org.awaitility.Awaitility.await;

/**
 * When each task's markers ({@link TrackingProducer#startMarkers}) come out of an application's output topic, as a
 * downstream consumer sees them, from separate processes too: the longest pause between two is how long that task
 * stood still. A marker keeps its key, {@code marker-<partition>}, through a counting topology.
 */
public final class MarkerWatcher implements AutoCloseable {

	private final KafkaConsumer<String, Long> consumer;

	private final Map<String, List<Long>> seen = new ConcurrentHashMap<>();

	private final Thread thread;

	private final int partitions;

	/**
	 * @param broker the broker
	 * @param outputTopic the application's output, whose records are counts
	 */
	public MarkerWatcher(KafkaBroker broker, String outputTopic) {
		this.consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
				new StringDeserializer(), new LongDeserializer());
		List<TopicPartition> partitions = this.consumer.partitionsFor(outputTopic)
			.stream()
			.map((info) -> new TopicPartition(info.topic(), info.partition()))
			.toList();
		this.partitions = partitions.size();
		this.consumer.assign(partitions);
		this.consumer.seekToEnd(partitions);
		this.thread = new Thread(this::watch, "marker-watcher");
		this.thread.start();
	}

	private void watch() {
		try {
			while (true) {
				for (ConsumerRecord<String, Long> record : this.consumer.poll(Duration.ofMillis(50))) {
					if (TrackingProducer.isMarker(record.key())) {
						this.seen.computeIfAbsent(record.key(), (key) -> new CopyOnWriteArrayList<>())
							.add(System.currentTimeMillis());
					}
				}
			}
		}
		catch (WakeupException ex) {
			// closed
		}
		finally {
			this.consumer.close();
		}
	}

	/**
	 * Wait until a marker of every task came out after a moment: each task's latest stall has ended.
	 * @param moment the moment, in milliseconds since the epoch
	 * @param atMost how long to wait
	 */
	public void awaitEveryTaskSince(long moment, Duration atMost) {
		await("every task's markers come out again").atMost(atMost)
			.until(() -> this.seen.size() == this.partitions && this.seen.values()
				.stream()
				.allMatch((times) -> !times.isEmpty() && times.get(times.size() - 1) > moment));
	}

	/**
	 * @param since a moment, in milliseconds since the epoch
	 * @return the longest pause of any task's markers since then
	 */
	public Duration longestGapSince(long since) {
		return longestGapSince(since, (partition) -> true);
	}

	/**
	 * @param since a moment, in milliseconds since the epoch
	 * @param ofPartition which tasks count, by their partition (task {@code 0_<partition>})
	 * @return the longest pause of those tasks' markers since then
	 */
	public Duration longestGapSince(long since, IntPredicate ofPartition) {
		long longest = 0;
		for (Map.Entry<String, List<Long>> task : this.seen.entrySet()) {
			if (!ofPartition.test(partitionOf(task.getKey()))) {
				continue;
			}
			List<Long> times = task.getValue();
			long previous = since;
			for (long time : times) {
				if (time > since) {
					longest = Math.max(longest, time - previous);
					previous = time;
				}
			}
		}
		return Duration.ofMillis(longest);
	}

	private static int partitionOf(String marker) {
		return Integer.parseInt(marker.substring(marker.lastIndexOf('-') + 1));
	}

	@Override
	public void close() throws InterruptedException {
		this.consumer.wakeup();
		this.thread.join(10_000);
	}

}
