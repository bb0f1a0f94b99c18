package io.github.incrementalrebalance.testkit;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import io.github.incrementalrebalance.member.ForwardingConsumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.streams.KafkaClientSupplier;

/**
 * A client supplier whose restore consumer is a real Kafka consumer slowed down by a {@link RestoreThrottle}. The
 * restore consumer feeds both active restoration and standbys (learners) of the instance.
 */
public final class ThrottledRestoreSupplier implements KafkaClientSupplier {

	private static final int MAX_POLL_RECORDS = 500;

	private final KafkaClientSupplier delegate;

	private final RestoreThrottle throttle;

	public ThrottledRestoreSupplier(KafkaClientSupplier delegate, RestoreThrottle throttle) {
		this.delegate = delegate;
		this.throttle = throttle;
	}

	@Override
	public Admin getAdmin(Map<String, Object> config) {
		return this.delegate.getAdmin(config);
	}

	@Override
	public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
		return this.delegate.getProducer(config);
	}

	@Override
	public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
		return this.delegate.getConsumer(config);
	}

	@Override
	public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
		Map<String, Object> small = new HashMap<>(config);
		small.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, MAX_POLL_RECORDS);
		return new ThrottledConsumer(this.delegate.getRestoreConsumer(small), this.throttle);
	}

	@Override
	public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
		return this.delegate.getGlobalConsumer(config);
	}

	private static final class ThrottledConsumer extends ForwardingConsumer<byte[], byte[]> {

		private final RestoreThrottle throttle;

		ThrottledConsumer(Consumer<byte[], byte[]> delegate, RestoreThrottle throttle) {
			super(delegate);
			this.throttle = throttle;
		}

		@Override
		public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
			ConsumerRecords<byte[], byte[]> records = delegate().poll(timeout);
			this.throttle.pace(records.count());
			return records;
		}

	}

}
