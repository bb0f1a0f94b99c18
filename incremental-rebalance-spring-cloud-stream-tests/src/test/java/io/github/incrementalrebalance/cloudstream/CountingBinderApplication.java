package io.github.incrementalrebalance.cloudstream;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.github.incrementalrebalance.autoconfigure.MemberRuntimes;
import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.CountingTopology;
import io.github.incrementalrebalance.testkit.GapMeter;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.RestoreCounter;
import io.github.incrementalrebalance.testkit.RestoredRecords;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.processor.TaskId;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;
import org.springframework.kafka.config.StreamsBuilderFactoryBeanConfigurer;

/**
 * A Spring Cloud Stream Kafka Streams binder application as users write one: functions from a stream of orders to
 * each key's count (the test kit's counting), the binder's own settings, the starter on the class path and nothing
 * of its own wired by hand. Each function is a Kafka Streams application of its own ({@code process} and
 * {@code audit}, as {@code spring.cloud.function.definition} selects); several instances run in one JVM, each
 * started with {@link #start}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class CountingBinderApplication {

	@Bean
	Function<KStream<String, String>, KStream<String, Long>> process(Markers markers, Environment environment) {
		return counting(markers.byFunction.get("process"), environment);
	}

	@Bean
	Function<KStream<String, String>, KStream<String, Long>> audit(Markers markers, Environment environment) {
		return counting(markers.byFunction.get("audit"), environment);
	}

	private static Function<KStream<String, String>, KStream<String, Long>> counting(GapMeter gapMeter,
			Environment environment) {
		String instance = environment.getRequiredProperty("incremental-rebalance.instance-id");
		return (orders) -> CountingTopology.countsOf(orders, instance, gapMeter);
	}

	@Bean
	Restores restores() {
		return new Restores();
	}

	/**
	 * Applied by the binder to each factory bean it makes, as every configurer bean is.
	 */
	@Bean
	StreamsBuilderFactoryBeanConfigurer countRestores(Restores restores) {
		return (factoryBean) -> {
			RestoreCounter counter = new RestoreCounter(factoryBean::getTopology);
			restores.byApplication.put(applicationIdOf(factoryBean), counter);
			factoryBean.setStateRestoreListener(counter);
		};
	}

	/**
	 * Start one instance serving HTTP on a random port.
	 * @param broker the broker
	 * @param instance the instance id
	 * @param stateRoot where instances keep their state, each in its own directory
	 * @param applications the functions to run ({@code process}, {@code audit}), each with its application (whose id
	 * is its topics' prefix and whose gap meter hears of its markers)
	 * @param properties more properties
	 * @return the running application
	 */
	static ConfigurableApplicationContext start(KafkaBroker broker, String instance, Path stateRoot,
			Map<String, CountingApplication> applications, String... properties) {
		String binder = "spring.cloud.stream.kafka.streams.binder.";
		List<String> all = new ArrayList<>(List.of("server.port=0",
				"spring.cloud.function.definition=" + String.join(";", applications.keySet()),
				binder + "brokers=" + broker.bootstrapServers(),
				binder + "configuration.state.dir=" + stateRoot.resolve(instance),
				binder + "configuration.consumer.heartbeat.interval.ms=500",
				binder + "configuration.consumer.session.timeout.ms=6000",
				binder + "configuration.statestore.cache.max.bytes=0",
				binder + "configuration.processing.guarantee=" + StreamsConfig.EXACTLY_ONCE_V2,
				"management.endpoints.web.exposure.include=health,rebalance",
				"management.endpoint.rebalance.access=unrestricted",
				"incremental-rebalance.instance-id=" + instance));
		Markers markers = new Markers();
		applications.forEach((function, application) -> {
			String applicationId = application.applicationId();
			markers.byFunction.put(function, application.gapMeter());
			all.add(binder + "functions." + function + ".applicationId=" + applicationId);
			all.add("spring.cloud.stream.bindings." + function + "-in-0.destination=" + applicationId + "-input");
			all.add("spring.cloud.stream.bindings." + function + "-out-0.destination=" + applicationId + "-output");
		});
		all.addAll(List.of(properties));
		return new SpringApplicationBuilder(CountingBinderApplication.class).web(WebApplicationType.SERVLET)
			.properties(all.toArray(String[]::new))
			.initializers((context) -> context.getBeanFactory().registerSingleton("testMarkers", markers))
			.run();
	}

	static MemberRuntime member(ConfigurableApplicationContext context, String applicationId) {
		return context.getBean(MemberRuntimes.class).all().stream()
			.filter((runtime) -> runtime.applicationId().equals(applicationId))
			.findFirst()
			.orElseThrow();
	}

	/**
	 * The tasks an instance's application runs, or none while its Kafka Streams is not running.
	 */
	static Set<TaskId> activeTasks(ConfigurableApplicationContext context, String applicationId) {
		KafkaStreams streams = factoryBean(context, applicationId).getKafkaStreams();
		return (streams != null && streams.state() == KafkaStreams.State.RUNNING)
				? streams.metadataForLocalThreads().stream()
					.map(ThreadMetadata::activeTasks)
					.flatMap(Set::stream)
					.map((task) -> task.taskId())
					.collect(Collectors.toSet())
				: Set.of();
	}

	/**
	 * The tasks some instances' application runs together, or none unless each of them is running.
	 */
	static Set<TaskId> activeTasksOf(String applicationId, ConfigurableApplicationContext... instances) {
		Set<TaskId> tasks = new HashSet<>();
		for (ConfigurableApplicationContext instance : instances) {
			Set<TaskId> ofInstance = activeTasks(instance, applicationId);
			if (ofInstance.isEmpty()) {
				return Set.of();
			}
			tasks.addAll(ofInstance);
		}
		return tasks;
	}

	static RestoredRecords restoredRecords(ConfigurableApplicationContext context, String applicationId) {
		return context.getBean(Restores.class).byApplication.get(applicationId).records();
	}

	static URI uri(ConfigurableApplicationContext context, String path) {
		return URI.create("http://localhost:" + context.getEnvironment().getProperty("local.server.port") + path);
	}

	private static StreamsBuilderFactoryBean factoryBean(ConfigurableApplicationContext context,
			String applicationId) {
		return context.getBeansOfType(StreamsBuilderFactoryBean.class).values().stream()
			.filter((factoryBean) -> applicationIdOf(factoryBean).equals(applicationId))
			.findFirst()
			.orElseThrow();
	}

	private static String applicationIdOf(StreamsBuilderFactoryBean factoryBean) {
		Properties properties = factoryBean.getStreamsConfiguration();
		return (properties != null) ? properties.getProperty(StreamsConfig.APPLICATION_ID_CONFIG, "") : "";
	}

	static final class Markers {

		private final Map<String, GapMeter> byFunction = new ConcurrentHashMap<>();

	}

	static final class Restores {

		private final Map<String, RestoreCounter> byApplication = new ConcurrentHashMap<>();

	}

}
