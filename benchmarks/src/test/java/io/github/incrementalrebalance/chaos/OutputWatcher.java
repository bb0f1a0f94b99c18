package io.github.incrementalrebalance.chaos;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import io.github.incrementalrebalance.testkit.GapMeter;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.processor.TaskId;

/**
 * Reads what the application's last sub-topology writes, as a downstream consumer does (read committed), from the
 * end: each marker that comes through is a sign of life of its stateful task, recorded when it becomes visible; each
 * key's counts must arrive in increasing order, a count seen twice is a record processed twice.
 */
final class OutputWatcher implements AutoCloseable {

	private final KafkaConsumer<String, Long> consumer;

	private final GapMeter gapMeter;

	private final Map<String, Long> lastCount = new HashMap<>();

	private final AtomicLong duplicated = new AtomicLong();

	private final Thread thread;

	private volatile boolean running = true;

	OutputWatcher(String bootstrapServers, String topic, GapMeter gapMeter) {
		this.gapMeter = gapMeter;
		this.consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
				ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed", ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
				"earliest"), new StringDeserializer(), new LongDeserializer());
		List<TopicPartition> partitions = this.consumer.partitionsFor(topic).stream()
			.map((info) -> new TopicPartition(topic, info.partition()))
			.toList();
		this.consumer.assign(partitions);
		this.consumer.seekToBeginning(partitions);
		this.thread = new Thread(this::watch, "chaos-output-watcher");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	private void watch() {
		try {
			while (this.running) {
				for (ConsumerRecord<String, Long> record : this.consumer.poll(Duration.ofMillis(100))) {
					see(record);
				}
			}
		}
		catch (WakeupException ex) {
			// closed
		}
		finally {
			this.consumer.close(Duration.ofSeconds(5));
		}
	}

	private void see(ConsumerRecord<String, Long> record) {
		Long previous = this.lastCount.put(record.key(), record.value());
		if (previous != null && record.value() <= previous) {
			this.duplicated.incrementAndGet();
		}
		if (TrackingProducer.isMarker(record.key())) {
			int partition = Integer.parseInt(record.key().substring(record.key().indexOf('-') + 1));
			this.gapMeter.markerProcessed(new TaskId(0, partition), "output",
					Instant.ofEpochMilli(record.timestamp()));
		}
	}

	/**
	 * Counts that came through again (or out of order) after a higher one: records processed twice.
	 * @return how many
	 */
	long duplicated() {
		return this.duplicated.get();
	}

	@Override
	public void close() throws InterruptedException {
		this.running = false;
		this.consumer.wakeup();
		this.thread.join(10_000);
	}

}
