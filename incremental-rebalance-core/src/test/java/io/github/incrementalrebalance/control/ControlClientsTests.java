package io.github.incrementalrebalance.control;

import java.security.KeyStore;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;

import io.github.incrementalrebalance.config.LearnerConfig;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.security.auth.SslEngineFactory;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The control topic's clients get what Kafka Streams would give its own, one rule per test.
 */
class ControlClientsTests {

	private static final String BUNDLE = "org.springframework.boot.ssl.SslBundle";

	@Test
	void aSettingEveryClientKnowsReachesEveryClient() {
		ControlClients clients = clients(Map.of(AdminClientConfig.SECURITY_PROTOCOL_CONFIG, "SASL_SSL"));
		assertThat(configs(clients)).allSatisfy(
				(config) -> assertThat(config).containsEntry(AdminClientConfig.SECURITY_PROTOCOL_CONFIG, "SASL_SSL"));
	}

	@Test
	void aSettingOneKindOfClientKnowsReachesThatKindOnly() {
		ControlClients clients = clients(Map.of(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 50,
				ProducerConfig.LINGER_MS_CONFIG, 5));
		assertThat(consumerConfig(clients)).containsEntry(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 50)
			.doesNotContainKey(ProducerConfig.LINGER_MS_CONFIG);
		assertThat(producerConfig(clients)).containsEntry(ProducerConfig.LINGER_MS_CONFIG, 5)
			.doesNotContainKey(ConsumerConfig.MAX_POLL_RECORDS_CONFIG);
		assertThat(adminConfig(clients)).doesNotContainKeys(ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
				ProducerConfig.LINGER_MS_CONFIG);
	}

	@Test
	void aClientsPrefixReachesItsKindWithoutThePrefixAndWinsOverThePlainSetting() {
		ControlClients clients = clients(Map.of(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 30_000,
				StreamsConfig.adminClientPrefix(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG), 7_000,
				StreamsConfig.consumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), 100,
				StreamsConfig.producerPrefix(ProducerConfig.BATCH_SIZE_CONFIG), 1_024));
		assertThat(adminConfig(clients)).containsEntry(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 7_000);
		assertThat(consumerConfig(clients)).containsEntry(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100)
			.containsEntry(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 30_000);
		assertThat(producerConfig(clients)).containsEntry(ProducerConfig.BATCH_SIZE_CONFIG, 1_024)
			.doesNotContainKey(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG);
	}

	@Test
	void keysNoKafkaClientKnowsObjectsIncludedReachEveryClient() {
		Object bundle = new Object();
		ControlClients clients = clients(Map.of(BUNDLE, bundle, "com.example.tracing.enabled", "true"));
		assertThat(configs(clients)).allSatisfy((config) -> assertThat(config).containsEntry(BUNDLE, bundle)
			.containsEntry("com.example.tracing.enabled", "true"));
	}

	@Test
	void kafkaStreamsOwnKeysThisLibrarysAndOtherClientsPrefixesReachNone() {
		ControlClients clients = clients(Map.of(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 4,
				LearnerConfig.DRAIN_TIMEOUT_MS_CONFIG, 60_000L, "incremental.rebalance.control.view", new Object(),
				StreamsConfig.mainConsumerPrefix(ConsumerConfig.MAX_POLL_RECORDS_CONFIG), 10,
				StreamsConfig.restoreConsumerPrefix(ConsumerConfig.MAX_POLL_RECORDS_CONFIG), 20,
				StreamsConfig.topicPrefix("retention.ms"), 1_000));
		assertThat(configs(clients)).allSatisfy((config) -> assertThat(config.keySet()).containsOnly(
				AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG));
	}

	@Test
	void theControlTopicsOwnSettingsComeLast() {
		ControlClients clients = clients(Map.of(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG),
				"earliest", ProducerConfig.ACKS_CONFIG, "1", ConsumerConfig.CLIENT_ID_CONFIG, "app-client"));
		assertThat(clients.consumerConfig()).containsEntry(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none")
			.containsEntry(ConsumerConfig.CLIENT_ID_CONFIG, "app-client-rebalance-control-reader");
		assertThat(clients.producerConfig()).containsEntry(ProducerConfig.ACKS_CONFIG, "all");
	}

	@Test
	void theWritersWaitsFollowTheControlTopicsTimeout() {
		assertThat(clients(Map.of()).producerConfig()).as("the default, 10 s")
			.containsEntry(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000L)
			.containsEntry(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000)
			.containsEntry(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
		Map<String, Object> unset = new HashMap<>();
		unset.put(LearnerConfig.CONTROL_TOPIC_TIMEOUT_MS_CONFIG, null);
		assertThat(clients(unset).timeout()).as("a key given as null, as any other client setting: the default")
			.isEqualTo(LearnerConfig.DEFAULT_CONTROL_TOPIC_TIMEOUT);
		ControlClients slow = clients(Map.of(LearnerConfig.CONTROL_TOPIC_TIMEOUT_MS_CONFIG, "25000"));
		assertThat(slow.timeout()).isEqualTo(Duration.ofSeconds(25));
		assertThat(slow.producerConfig()).as("a producer gives a record three of its requests")
			.containsEntry(ProducerConfig.MAX_BLOCK_MS_CONFIG, 25_000L)
			.containsEntry(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 25_000)
			.containsEntry(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 75_000);
	}

	@Test
	void clientsAreNamedAfterTheMembersClientIdOrElseTheApplication() {
		assertThat(names(clients(Map.of(StreamsConfig.CLIENT_ID_CONFIG, "orders-pod-7"))))
			.containsExactly("orders-pod-7-rebalance-control-admin", "orders-pod-7-rebalance-control-reader",
					"orders-pod-7-rebalance-control-writer");
		assertThat(names(clients(Map.of()))).containsExactly("app-rebalance-control-admin",
				"app-rebalance-control-reader", "app-rebalance-control-writer");
		Map<String, Object> sizes = new HashMap<>(Map.of(StreamsConfig.APPLICATION_ID_CONFIG, "app",
				StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9", StreamsConfig.CLIENT_ID_CONFIG, "orders-pod-7"));
		assertThat(ControlClients.ofChangelogSizes(sizes).adminConfig())
			.containsEntry(AdminClientConfig.CLIENT_ID_CONFIG, "orders-pod-7-rebalance-sizes-admin");
	}

	private static List<Object> names(ControlClients clients) {
		return List.of(clients.adminConfig(), clients.consumerConfig(), clients.producerConfig())
			.stream()
			.map((config) -> config.get(CommonClientConfigs.CLIENT_ID_CONFIG))
			.toList();
	}

	@Test
	void anSslEngineFactoryGetsTheObjectItReadsInEveryClient() {
		RecordingEngineFactory.seen.clear();
		Object bundle = new Object();
		ControlClients clients = clients(Map.of(AdminClientConfig.SECURITY_PROTOCOL_CONFIG, "SSL",
				"ssl.engine.factory.class", RecordingEngineFactory.class, BUNDLE, bundle));
		try (Admin admin = clients.admin(); KafkaConsumer<byte[], byte[]> consumer = clients.consumer();
				KafkaProducer<byte[], byte[]> producer = clients.producer()) {
			assertThat(RecordingEngineFactory.seen).as("what the engine factory of each client was configured with")
				.hasSize(3)
				.allSatisfy((config) -> assertThat(config).containsEntry(BUNDLE, bundle));
			admin.close(Duration.ZERO);
			consumer.close(Duration.ZERO);
			producer.close(Duration.ZERO);
		}
	}

	private static ControlClients clients(Map<String, Object> settings) {
		Map<String, Object> config = new HashMap<>(settings);
		config.put(StreamsConfig.APPLICATION_ID_CONFIG, "app");
		config.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9");
		return ControlClients.ofControlTopic(config);
	}

	private static List<Map<String, Object>> configs(ControlClients clients) {
		return List.of(adminConfig(clients), consumerConfig(clients), producerConfig(clients));
	}

	private static Map<String, Object> adminConfig(ControlClients clients) {
		return clients.configOf(AdminClientConfig.configNames(), StreamsConfig.ADMIN_CLIENT_PREFIX);
	}

	private static Map<String, Object> consumerConfig(ControlClients clients) {
		return clients.configOf(ConsumerConfig.configNames(), StreamsConfig.CONSUMER_PREFIX);
	}

	private static Map<String, Object> producerConfig(ControlClients clients) {
		return clients.configOf(ProducerConfig.configNames(), StreamsConfig.PRODUCER_PREFIX);
	}

	/**
	 * An SSL engine factory that reads an object from its config, as Spring Boot's bundle factory does.
	 */
	public static final class RecordingEngineFactory implements SslEngineFactory {

		static final List<Map<String, Object>> seen = new CopyOnWriteArrayList<>();

		@Override
		public void configure(Map<String, ?> configs) {
			seen.add(new HashMap<>(configs));
		}

		@Override
		public SSLEngine createClientSslEngine(String peerHost, int peerPort, String endpointIdentification) {
			return engine(peerHost, peerPort, true);
		}

		@Override
		public SSLEngine createServerSslEngine(String peerHost, int peerPort) {
			return engine(peerHost, peerPort, false);
		}

		private static SSLEngine engine(String host, int port, boolean client) {
			try {
				SSLEngine engine = SSLContext.getDefault().createSSLEngine(host, port);
				engine.setUseClientMode(client);
				return engine;
			}
			catch (NoSuchAlgorithmException ex) {
				throw new IllegalStateException(ex);
			}
		}

		@Override
		public boolean shouldBeRebuilt(Map<String, Object> nextConfigs) {
			return false;
		}

		@Override
		public Set<String> reconfigurableConfigs() {
			return Set.of();
		}

		@Override
		public KeyStore keystore() {
			return null;
		}

		@Override
		public KeyStore truststore() {
			return null;
		}

		@Override
		public void close() {
		}

	}

}
