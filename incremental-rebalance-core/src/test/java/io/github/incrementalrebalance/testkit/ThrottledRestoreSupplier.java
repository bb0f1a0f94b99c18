package io.github.incrementalrebalance.testkit;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import io.github.incrementalrebalance.member.ForwardingClientSupplier;
import io.github.incrementalrebalance.member.ForwardingConsumer;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.streams.KafkaClientSupplier;

/**
 * A client supplier whose restore consumer is a real Kafka consumer slowed down by a {@link RestoreThrottle}. The
 * restore consumer feeds both active restoration and standbys (learners) of the instance.
 */
public final class ThrottledRestoreSupplier extends ForwardingClientSupplier {

	private static final int MAX_POLL_RECORDS = 500;

	private final RestoreThrottle throttle;

	public ThrottledRestoreSupplier(KafkaClientSupplier delegate, RestoreThrottle throttle) {
		super(delegate);
		this.throttle = throttle;
	}

	@Override
	public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
		Map<String, Object> small = new HashMap<>(config);
		small.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, MAX_POLL_RECORDS);
		return new ThrottledConsumer(delegate().getRestoreConsumer(small), this.throttle);
	}

	private static final class ThrottledConsumer extends ForwardingConsumer<byte[], byte[]> {

		private final RestoreThrottle throttle;

		ThrottledConsumer(Consumer<byte[], byte[]> delegate, RestoreThrottle throttle) {
			super(delegate);
			this.throttle = throttle;
		}

		@Override
		public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
			if (this.throttle.heldFor(timeout)) {
				return ConsumerRecords.empty();
			}
			ConsumerRecords<byte[], byte[]> records = delegate().poll(timeout);
			this.throttle.pace(records.count());
			return records;
		}

	}

}
