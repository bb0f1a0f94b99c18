package io.github.incrementalrebalance.sample;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import org.springframework.util.FileSystemUtils;

/**
 * Starts an in-process KRaft broker for the demo when no {@code spring.kafka.bootstrap-servers} is given, and tells
 * how to start a second instance against it.
 */
class DemoBroker implements ApplicationContextInitializer<ConfigurableApplicationContext> {

	private static final Logger logger = LoggerFactory.getLogger(DemoBroker.class);

	static final String BOOTSTRAP_SERVERS = "spring.kafka.bootstrap-servers";

	@Override
	public void initialize(ConfigurableApplicationContext context) {
		ConfigurableEnvironment environment = context.getEnvironment();
		if (environment.containsProperty(BOOTSTRAP_SERVERS)) {
			return;
		}
		deleteStateOfEarlierDemos();
		EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, 6);
		broker.brokerProperties(Map.of("transaction.state.log.replication.factor", "1",
				"transaction.state.log.min.isr", "1"));
		broker.afterPropertiesSet();
		String bootstrapServers = broker.getBrokersAsString();
		environment.getPropertySources()
			.addFirst(new MapPropertySource("demoBroker", Map.of(BOOTSTRAP_SERVERS, bootstrapServers)));
		// registered first, so destroyed last: Kafka Streams and the producers close before the broker goes
		((DefaultListableBeanFactory) context.getBeanFactory()).registerDisposableBean("demoBroker", broker);
		logger.warn("Demo Kafka broker started at {}", bootstrapServers);
		logger.warn("Start a second instance with: ./mvnw -q -pl sample-app -am spring-boot:test-run "
				+ "-Dspring-boot.run.arguments=\"--spring.kafka.bootstrap-servers={} --server.port=8081\"",
				bootstrapServers);
	}

	/**
	 * State directories of an earlier demo point at changelog offsets of a broker that is gone; a new broker would
	 * see every task corrupted once, and say so loudly.
	 */
	private static void deleteStateOfEarlierDemos() {
		try {
			FileSystemUtils.deleteRecursively(Path.of(System.getProperty("java.io.tmpdir"), "sample-app"));
		}
		catch (IOException ex) {
			logger.warn("Could not delete the state of an earlier demo: {}", ex.getMessage());
		}
	}

}
