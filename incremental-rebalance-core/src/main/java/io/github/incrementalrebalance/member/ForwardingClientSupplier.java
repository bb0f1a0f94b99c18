package io.github.incrementalrebalance.member;

import java.util.Map;
import java.util.Objects;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.streams.KafkaClientSupplier;

/**
 * A {@link KafkaClientSupplier} that has every client made by another one; subclasses decorate what they change.
 */
public abstract class ForwardingClientSupplier implements KafkaClientSupplier {

	private final KafkaClientSupplier delegate;

	protected ForwardingClientSupplier(KafkaClientSupplier delegate) {
		this.delegate = Objects.requireNonNull(delegate, "delegate");
	}

	protected final KafkaClientSupplier delegate() {
		return this.delegate;
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
		return this.delegate.getRestoreConsumer(config);
	}

	@Override
	public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
		return this.delegate.getGlobalConsumer(config);
	}

}
