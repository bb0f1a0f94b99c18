package io.github.incrementalrebalance.sample;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

import static org.awaitility.Awaitility.await;

/**
 * When each task's markers come out of the application, as a downstream consumer sees them: the longest pause
 * between two is how long that task stood still.
 */
final class MarkerWatcher implements AutoCloseable {

	private final KafkaConsumer<String, Long> consumer;

	private final Map<String, List<Long>> seen = new ConcurrentHashMap<>();

	private final Thread thread;

	MarkerWatcher(KafkaBroker broker) {
		this.consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
				new StringDeserializer(), new LongDeserializer());
		List<TopicPartition> partitions = this.consumer.partitionsFor(PageViews.OUTPUT)
			.stream()
			.map((info) -> new TopicPartition(info.topic(), info.partition()))
			.toList();
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

	/** Wait until a marker of every task came out after a moment: each task's latest stall has ended. */
	void awaitEveryTaskSince(long moment, Duration atMost) {
		await("every task's markers come out again").atMost(atMost)
			.until(() -> this.seen.size() == PageViews.PARTITIONS && this.seen.values()
				.stream()
				.allMatch((times) -> !times.isEmpty() && times.get(times.size() - 1) > moment));
	}

	Duration longestGapSince(long since) {
		long longest = 0;
		for (List<Long> times : this.seen.values()) {
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

	@Override
	public void close() throws InterruptedException {
		this.consumer.wakeup();
		this.thread.join(10_000);
	}

}
