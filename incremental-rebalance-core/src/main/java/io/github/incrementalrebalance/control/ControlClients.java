package io.github.incrementalrebalance.control;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.incrementalrebalance.config.LearnerConfig;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Makes the library's own clients (the control topic's, and the leader's reader of changelog sizes) from the Kafka
 * Streams config, the way Kafka Streams configures its own clients, so that they reach the cluster as Kafka Streams
 * does: every setting the client knows ({@code bootstrap.servers}, security, SASL, SSL, timeouts); every key no Kafka
 * client or Kafka Streams knows, objects included (what a pluggable class such as an SSL engine factory reads: Spring
 * Boot's SSL bundle); then the client's prefix ({@code admin.}, {@code consumer.}, {@code producer.}) over those; and
 * the control topic's own settings last. Kafka Streams' and this library's own keys, and the other prefixes, go to
 * none.
 */
public final class ControlClients {

	/** How long the producer keeps trying a record before it gives up on it, unless three requests take longer. */
	private static final Duration WRITE_DELIVERY = Duration.ofSeconds(30);

	/** Settings of Kafka Streams' other clients: none of them is meant for a client of the control topic. */
	private static final List<String> OTHER_PREFIXES = List.of(StreamsConfig.MAIN_CONSUMER_PREFIX,
			StreamsConfig.RESTORE_CONSUMER_PREFIX, StreamsConfig.GLOBAL_CONSUMER_PREFIX, StreamsConfig.TOPIC_PREFIX,
			StreamsConfig.CLIENT_TAG_PREFIX, StreamsConfig.CONSUMER_PREFIX, StreamsConfig.PRODUCER_PREFIX,
			StreamsConfig.ADMIN_CLIENT_PREFIX);

	/** The prefix of this library's keys, and of the objects it hands the assignor in the Streams config. */
	private static final String LIBRARY_PREFIX = "incremental.rebalance.";

	private final Map<String, ?> streamsConfig;

	private final String clientIdPrefix;

	private final Duration timeout;

	/**
	 * The clients of a member's control topic, named after its Kafka Streams clients.
	 * @param streamsConfig the Kafka Streams config
	 * @return clients whose ids are {@code <client.id or application.id>-rebalance-control-*}
	 */
	public static ControlClients ofControlTopic(Map<String, ?> streamsConfig) {
		return new ControlClients(streamsConfig, clientIdBase(streamsConfig) + "-rebalance-control");
	}

	/**
	 * The clients with which a leader reads the sizes of changelogs.
	 * @param streamsConfig the Kafka Streams config
	 * @return clients whose ids are {@code <client.id or application.id>-rebalance-sizes-*}
	 */
	public static ControlClients ofChangelogSizes(Map<String, ?> streamsConfig) {
		return new ControlClients(streamsConfig, clientIdBase(streamsConfig) + "-rebalance-sizes");
	}

	/**
	 * The clients with which a member draining under the streams protocol describes its group.
	 * @param streamsConfig the Kafka Streams config
	 * @return clients whose ids are {@code <client.id or application.id>-rebalance-group-*}
	 */
	public static ControlClients ofStreamsGroup(Map<String, ?> streamsConfig) {
		return new ControlClients(streamsConfig, clientIdBase(streamsConfig) + "-rebalance-group");
	}

	/**
	 * What Kafka Streams names its own clients after: its {@code client.id} when set, so that the broker's logs,
	 * quotas and a network's rules tell one member's control clients from another's, as they do its stream threads'
	 * clients; the application id otherwise.
	 */
	private static String clientIdBase(Map<String, ?> streamsConfig) {
		Object clientId = streamsConfig.get(StreamsConfig.CLIENT_ID_CONFIG);
		return (clientId != null && !clientId.toString().isBlank()) ? clientId.toString()
				: String.valueOf(streamsConfig.get(StreamsConfig.APPLICATION_ID_CONFIG));
	}

	ControlClients(Map<String, ?> streamsConfig, String clientIdPrefix) {
		if (streamsConfig.get(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG) == null) {
			throw new IllegalArgumentException("bootstrap.servers is missing from the Kafka Streams config");
		}
		this.streamsConfig = Map.copyOf(withoutNulls(streamsConfig));
		this.clientIdPrefix = clientIdPrefix;
		this.timeout = new LearnerConfig(this.streamsConfig).controlTopicTimeout();
	}

	/**
	 * How long the cluster may take to answer one request about the control topic
	 * ({@value LearnerConfig#CONTROL_TOPIC_TIMEOUT_MS_CONFIG}): the producer's wait for metadata and for one request's
	 * answer, so also what a caller that must know the outcome of a write waits ({@link ControlWriter#writeAndWait});
	 * the probe's and the reader's requests.
	 * @return the timeout
	 */
	Duration timeout() {
		return this.timeout;
	}

	private static Map<String, Object> withoutNulls(Map<String, ?> config) {
		Map<String, Object> copy = new HashMap<>();
		config.forEach((key, value) -> {
			if (value != null) {
				copy.put(key, value);
			}
		});
		return copy;
	}

	/**
	 * The config of one client, before the control topic's own settings.
	 * @param known the names the client knows
	 * @param prefix the Kafka Streams prefix of this kind of client
	 * @return the config
	 */
	Map<String, Object> configOf(Set<String> known, String prefix) {
		Set<String> streams = StreamsConfig.configDef().names();
		Set<String> library = LearnerConfig.configNames();
		Map<String, Object> config = new HashMap<>();
		this.streamsConfig.forEach((key, value) -> {
			boolean custom = !streams.contains(key) && !library.contains(key) && !key.startsWith(LIBRARY_PREFIX)
					&& !AdminClientConfig.configNames().contains(key) && !ConsumerConfig.configNames().contains(key)
					&& !ProducerConfig.configNames().contains(key) && OTHER_PREFIXES.stream().noneMatch(key::startsWith);
			if (custom || known.contains(key)) {
				config.put(key, value);
			}
		});
		this.streamsConfig.forEach((key, value) -> {
			if (key.startsWith(prefix)) {
				config.put(key.substring(prefix.length()), value);
			}
		});
		config.remove(AdminClientConfig.CLIENT_ID_CONFIG);
		return config;
	}

	public Admin admin() {
		return Admin.create(adminConfig());
	}

	Map<String, Object> adminConfig() {
		Map<String, Object> config = configOf(AdminClientConfig.configNames(), StreamsConfig.ADMIN_CLIENT_PREFIX);
		config.put(AdminClientConfig.CLIENT_ID_CONFIG, this.clientIdPrefix + "-admin");
		return config;
	}

	KafkaConsumer<byte[], byte[]> consumer() {
		return new KafkaConsumer<>(consumerConfig(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
	}

	Map<String, Object> consumerConfig() {
		Map<String, Object> config = configOf(ConsumerConfig.configNames(), StreamsConfig.CONSUMER_PREFIX);
		config.put(ConsumerConfig.CLIENT_ID_CONFIG, this.clientIdPrefix + "-reader");
		config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
		config.remove(ConsumerConfig.GROUP_ID_CONFIG);
		config.remove(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
		config.remove(ConsumerConfig.GROUP_PROTOCOL_CONFIG);
		// the control topic is created compacted, on purpose: a reader must not bring back a deleted one with the
		// broker's defaults
		config.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
		// the reader always says where to read; records gone from where it would resume make it start over, never
		// skip silently to wherever a reset would put it
		config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
		return config;
	}

	KafkaProducer<byte[], byte[]> producer() {
		return new KafkaProducer<>(producerConfig(), new ByteArraySerializer(), new ByteArraySerializer());
	}

	Map<String, Object> producerConfig() {
		Map<String, Object> config = configOf(ProducerConfig.configNames(), StreamsConfig.PRODUCER_PREFIX);
		config.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
		config.put(ProducerConfig.CLIENT_ID_CONFIG, this.clientIdPrefix + "-writer");
		config.put(ProducerConfig.ACKS_CONFIG, "all");
		config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
		// a send must not block a leave, a cancel or the plan thread for Kafka's default minute
		config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, this.timeout.toMillis());
		config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
				(int) Math.min(Integer.MAX_VALUE, Math.max(WRITE_DELIVERY.toMillis(), 3 * this.timeout.toMillis())));
		config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) this.timeout.toMillis());
		return config;
	}

}
