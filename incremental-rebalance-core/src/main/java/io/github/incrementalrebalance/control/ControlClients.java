package io.github.incrementalrebalance.control;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Makes the library's own clients (the control topic's, and the leader's reader of changelog sizes) from the Kafka
 * Streams config: the settings every client shares (bootstrap, security, SASL, SSL, DNS lookup) are taken as they
 * are, so they reach the cluster the same way Kafka Streams does.
 */
public final class ControlClients {

	/**
	 * How long the control topic's producer waits for metadata, and for one request's answer: what a caller that must
	 * know the outcome of a write waits ({@link ControlWriter#writeAndWait}).
	 */
	static final Duration WRITE_ATTEMPT = Duration.ofSeconds(10);

	/** How long the producer keeps trying a record before it gives up on it. */
	static final Duration WRITE_DELIVERY = Duration.ofSeconds(30);

	private final Map<String, Object> connection = new HashMap<>();

	private final String clientIdPrefix;

	public ControlClients(Map<String, ?> streamsConfig, String clientIdPrefix) {
		Set<String> admin = AdminClientConfig.configNames();
		Set<String> consumer = ConsumerConfig.configNames();
		Set<String> producer = ProducerConfig.configNames();
		streamsConfig.forEach((key, value) -> {
			if (value != null && admin.contains(key) && consumer.contains(key) && producer.contains(key)
					&& !key.equals(AdminClientConfig.CLIENT_ID_CONFIG)) {
				this.connection.put(key, value);
			}
		});
		if (!this.connection.containsKey(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG)) {
			throw new IllegalArgumentException("bootstrap.servers is missing from the Kafka Streams config");
		}
		this.clientIdPrefix = clientIdPrefix;
	}

	public Admin admin() {
		Map<String, Object> config = new HashMap<>(this.connection);
		config.put(AdminClientConfig.CLIENT_ID_CONFIG, this.clientIdPrefix + "-admin");
		return Admin.create(config);
	}

	KafkaConsumer<byte[], byte[]> consumer() {
		Map<String, Object> config = new HashMap<>(this.connection);
		config.put(ConsumerConfig.CLIENT_ID_CONFIG, this.clientIdPrefix + "-reader");
		config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
		config.remove(ConsumerConfig.GROUP_ID_CONFIG);
		// the control topic is created compacted, on purpose: a reader must not bring back a deleted one with the
		// broker's defaults
		config.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
		// the reader always says where to read; records gone from where it would resume make it start over, never
		// skip silently to wherever a reset would put it
		config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
		return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
	}

	KafkaProducer<byte[], byte[]> producer() {
		Map<String, Object> config = new HashMap<>(this.connection);
		config.put(ProducerConfig.CLIENT_ID_CONFIG, this.clientIdPrefix + "-writer");
		config.put(ProducerConfig.ACKS_CONFIG, "all");
		config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
		// a send must not block a leave, a cancel or the plan thread for Kafka's default minute
		config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) WRITE_ATTEMPT.toMillis());
		config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) WRITE_DELIVERY.toMillis());
		config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) WRITE_ATTEMPT.toMillis());
		return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
	}

}
