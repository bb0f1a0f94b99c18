package io.github.incrementalrebalance.sample;

import java.time.Duration;
import java.util.Map;

import io.github.incrementalrebalance.member.ForwardingClientSupplier;
import io.github.incrementalrebalance.member.ForwardingConsumer;
import io.github.incrementalrebalance.member.PlainKafkaClients;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.streams.KafkaClientSupplier;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * With {@code sample.restore-rate} set (records per second), each instance reads changelogs, for restores and for
 * learners alike, at most that fast: the sample's few hundred thousand records then take as long to warm up as a
 * production instance's gigabytes, so a drain, a rolling update and the grace period they need can be watched and
 * measured on one machine. Unset, restores run at full speed. Read when the clients are made, not as a bean
 * condition, so that the application processed ahead of time (Spring AOT) honours the value it runs with.
 */
@Configuration(proxyBeanMethods = false)
class RestoreRateLimit {

	/**
	 * Kafka's clients, with a restore consumer that takes its time when a rate is set; the starter wraps this
	 * application supplier as it would any other.
	 * @param recordsPerSecond {@code sample.restore-rate}: at least 1, or null (unset) for full speed
	 * @return the supplier
	 */
	@Bean
	KafkaClientSupplier restoreRateLimitedClients(@Value("${sample.restore-rate:#{null}}") Long recordsPerSecond) {
		if (recordsPerSecond != null && recordsPerSecond < 1) {
			throw new IllegalArgumentException("sample.restore-rate must be at least 1 record per second (or unset "
					+ "for full speed), was " + recordsPerSecond);
		}
		return new ForwardingClientSupplier(new PlainKafkaClients()) {

			@Override
			public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
				Consumer<byte[], byte[]> consumer = delegate().getRestoreConsumer(config);
				return (recordsPerSecond == null) ? consumer : new RateLimitedConsumer(consumer, recordsPerSecond);
			}

		};
	}

	/**
	 * A restore consumer that holds its thread, after each poll, for as long as the records polled take at the rate.
	 * Called by the one thread that restores.
	 */
	static final class RateLimitedConsumer extends ForwardingConsumer<byte[], byte[]> {

		private final long recordsPerSecond;

		RateLimitedConsumer(Consumer<byte[], byte[]> delegate, long recordsPerSecond) {
			super(delegate);
			this.recordsPerSecond = recordsPerSecond;
		}

		@Override
		public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
			ConsumerRecords<byte[], byte[]> records = delegate().poll(timeout);
			try {
				Thread.sleep(records.count() * 1_000L / this.recordsPerSecond);
			}
			catch (InterruptedException ex) {
				// closing: the records are handed on, the close goes ahead
				Thread.currentThread().interrupt();
			}
			return records;
		}

	}

}
