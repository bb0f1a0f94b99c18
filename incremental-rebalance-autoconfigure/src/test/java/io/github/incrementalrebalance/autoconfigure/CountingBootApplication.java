package io.github.incrementalrebalance.autoconfigure;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import io.github.incrementalrebalance.testkit.CountingTopology;
import io.github.incrementalrebalance.testkit.GapMeter;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.RestoreCounter;
import io.github.incrementalrebalance.testkit.RestoreThrottle;
import io.github.incrementalrebalance.testkit.RestoredRecords;
import io.github.incrementalrebalance.testkit.ThrottledRestoreSupplier;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.internals.DefaultKafkaClientSupplier;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.kafka.annotation.EnableKafkaStreams;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;
import org.springframework.kafka.config.StreamsBuilderFactoryBeanConfigurer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The Spring Boot application of the auto-configuration's integration tests: the test kit's counting topology
 * ({@code <application>-input} to {@code <application>-output}) with {@code @EnableKafkaStreams} and the starter, set
 * up for tests as every instance of the test kit is (own state directory, fast heartbeats). Several run in one JVM
 * against one broker; each is started with {@link #start}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableKafkaStreams
class CountingBootApplication {

	@Bean
	KStream<String, String> counts(StreamsBuilder builder, Environment environment) {
		String application = environment.getRequiredProperty("spring.kafka.streams.application-id");
		return CountingTopology.addTo(builder, application + "-input", application + "-output",
				environment.getRequiredProperty("incremental-rebalance.instance-id"), new GapMeter());
	}

	@Bean
	RemovedStreams removedStreams() {
		return new RemovedStreams();
	}

	@Bean
	StreamsBuilderFactoryBeanConfigurer recordRemovedStreams(RemovedStreams removed) {
		return (factoryBean) -> factoryBean.addListener(removed);
	}

	@Bean
	Restores restores() {
		return new Restores();
	}

	@Bean
	StreamsBuilderFactoryBeanConfigurer countRestores(Restores restores) {
		return (factoryBean) -> {
			restores.counter = new RestoreCounter(factoryBean::getTopology);
			factoryBean.setStateRestoreListener(restores.counter);
		};
	}

	/**
	 * The records the application restored into its active tasks, per task: what a task that moved onto a warm
	 * learner restores at promotion is at most the learner's last lag, a cold move restores the whole state.
	 * @param context the application
	 * @return the counts so far
	 */
	static RestoredRecords restoredRecords(ConfigurableApplicationContext context) {
		return context.getBean(Restores.class).counter.records();
	}

	/**
	 * The Kafka Streams its factory bean told its listeners were removed (the client ids).
	 * @param context the application
	 * @return the client ids, oldest first
	 */
	static List<String> removedStreams(ConfigurableApplicationContext context) {
		return List.copyOf(context.getBean(RemovedStreams.class).ids);
	}

	/**
	 * Start one instance.
	 * @param broker the broker
	 * @param application the application id (and topic prefix)
	 * @param instance the instance id
	 * @param stateRoot where instances keep their state, each in its own directory
	 * @param throttle slows the instance's restores; {@code null} for none
	 * @param web whether it serves HTTP (on a random port)
	 * @param properties more properties
	 * @return the running application
	 */
	static ConfigurableApplicationContext start(KafkaBroker broker, String application, String instance,
			Path stateRoot, @Nullable RestoreThrottle throttle, boolean web, String... properties) {
		return start(broker.bootstrapServers(), application, instance, stateRoot, throttle, web, properties);
	}

	/**
	 * Start one instance with any bootstrap address, reachable or not.
	 * @param bootstrapServers the bootstrap servers
	 * @param application the application id (and topic prefix)
	 * @param instance the instance id
	 * @param stateRoot where instances keep their state, each in its own directory
	 * @param throttle slows the instance's restores; {@code null} for none
	 * @param web whether it serves HTTP (on a random port)
	 * @param properties more properties
	 * @return the running application
	 */
	static ConfigurableApplicationContext start(String bootstrapServers, String application, String instance,
			Path stateRoot, @Nullable RestoreThrottle throttle, boolean web, String... properties) {
		List<String> all = new ArrayList<>(List.of("server.port=0", "spring.kafka.bootstrap-servers=" + bootstrapServers,
				"spring.kafka.streams.application-id=" + application,
				"spring.kafka.streams.state-dir=" + stateRoot.resolve(instance),
				"spring.kafka.streams.properties.consumer.heartbeat.interval.ms=500",
				"spring.kafka.streams.properties.consumer.session.timeout.ms=6000",
				"spring.kafka.streams.properties.statestore.cache.max.bytes=0",
				"incremental-rebalance.instance-id=" + instance));
		all.addAll(List.of(properties));
		KafkaClientSupplier clients = (throttle != null)
				? new ThrottledRestoreSupplier(new DefaultKafkaClientSupplier(), throttle)
				: new DefaultKafkaClientSupplier();
		return new SpringApplicationBuilder(CountingBootApplication.class)
			.web(web ? WebApplicationType.SERVLET : WebApplicationType.NONE)
			.properties(all.toArray(String[]::new))
			.initializers((context) -> context.getBeanFactory().registerSingleton("testClients", clients))
			.run();
	}

	/**
	 * Spring Security with its CSRF protection on, as a single-page application sets it up (the token in a cookie a
	 * script reads, sent back in a header): with {@code test.security.csrf=true}. Every request is let through; a
	 * write without the token is refused with 403.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBooleanProperty("test.security.csrf")
	@EnableWebSecurity
	static class CsrfProtection {

		@Bean
		SecurityFilterChain csrfProtected(HttpSecurity http) throws Exception {
			return http.authorizeHttpRequests((requests) -> requests.anyRequest().permitAll())
				.csrf((csrf) -> csrf.spa())
				.build();
		}

	}

	static final class Restores {

		private volatile RestoreCounter counter;

	}

	static final class RemovedStreams implements StreamsBuilderFactoryBean.Listener {

		private final List<String> ids = new CopyOnWriteArrayList<>();

		@Override
		public void streamsRemoved(String id, KafkaStreams streams) {
			this.ids.add(id);
		}

	}

	/**
	 * Where an instance that serves HTTP answers a path.
	 * @param context the instance
	 * @param path the path
	 * @return the address on its port
	 */
	static URI uri(ConfigurableApplicationContext context, String path) {
		return URI.create("http://localhost:" + context.getEnvironment().getProperty("local.server.port") + path);
	}

	static boolean running(ConfigurableApplicationContext context) {
		KafkaStreams streams = context.getBean(StreamsBuilderFactoryBean.class).getKafkaStreams();
		return streams != null && streams.state() == KafkaStreams.State.RUNNING;
	}

	static Set<TaskId> activeTasks(ConfigurableApplicationContext context) {
		KafkaStreams streams = context.getBean(StreamsBuilderFactoryBean.class).getKafkaStreams();
		return (streams != null) ? streams.metadataForLocalThreads().stream()
			.map(ThreadMetadata::activeTasks)
			.flatMap(Set::stream)
			.map((task) -> task.taskId())
			.collect(Collectors.toSet()) : Set.of();
	}

}
