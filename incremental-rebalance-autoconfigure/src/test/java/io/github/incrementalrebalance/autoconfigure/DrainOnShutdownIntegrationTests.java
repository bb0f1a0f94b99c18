package io.github.incrementalrebalance.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;

import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.annotation.EnableKafkaStreams;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two Spring Boot applications in one JVM on a real broker: closing the context of one that has
 * {@code incremental-rebalance.drain-on-shutdown=true} (what SIGTERM does) drains it through the other before its
 * Kafka Streams closes.
 */
class DrainOnShutdownIntegrationTests {

	private static final int PARTITIONS = 4;

	@RegisterExtension
	static final KafkaBroker broker = new KafkaBroker();

	@TempDir
	Path stateRoot;

	@Test
	void normalShutdownDrainsFirst() {
		broker.createTopics(PARTITIONS, "shutdown-input", "shutdown-output");
		try (ConfigurableApplicationContext a = start("a", false); ConfigurableApplicationContext b = start("b", true)) {
			await("both run a share of the tasks").atMost(Duration.ofMinutes(1))
				.until(() -> running(a) && running(b) && !activeTasks(b).isEmpty()
						&& activeTasks(a).size() + activeTasks(b).size() == PARTITIONS);
			MemberRuntime drained = b.getBean(MemberRuntimes.class).all().get(0);

			b.close();

			assertThat(drained.state()).as("b drained before its Kafka Streams closed").isEqualTo(MemberState.CLOSED);
			await("a runs every task").atMost(Duration.ofSeconds(30))
				.until(() -> running(a) && activeTasks(a).size() == PARTITIONS);
			assertThat(a.getBean(MemberRuntimes.class).all().get(0).state()).isEqualTo(MemberState.STABLE);
		}
	}

	private ConfigurableApplicationContext start(String name, boolean drainOnShutdown) {
		return new SpringApplicationBuilder(CountingApplication.class).web(WebApplicationType.NONE)
			.properties("spring.kafka.bootstrap-servers=" + broker.bootstrapServers(),
					"spring.kafka.streams.application-id=shutdown-app",
					"spring.kafka.streams.state-dir=" + this.stateRoot.resolve(name),
					"spring.kafka.streams.properties.consumer.heartbeat.interval.ms=500",
					"spring.kafka.streams.properties.consumer.session.timeout.ms=6000",
					"spring.kafka.streams.properties.statestore.cache.max.bytes=0",
					"incremental-rebalance.instance-id=" + name,
					"incremental-rebalance.drain-on-shutdown=" + drainOnShutdown,
					"incremental-rebalance.scale-down-timeout=30s")
			.run();
	}

	private static boolean running(ConfigurableApplicationContext context) {
		KafkaStreams streams = context.getBean(StreamsBuilderFactoryBean.class).getKafkaStreams();
		return streams != null && streams.state() == KafkaStreams.State.RUNNING;
	}

	private static Set<TaskId> activeTasks(ConfigurableApplicationContext context) {
		KafkaStreams streams = context.getBean(StreamsBuilderFactoryBean.class).getKafkaStreams();
		return streams.metadataForLocalThreads().stream()
			.map(ThreadMetadata::activeTasks)
			.flatMap(Set::stream)
			.map((task) -> task.taskId())
			.collect(Collectors.toSet());
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@EnableKafkaStreams
	static class CountingApplication {

		@Bean
		KStream<String, String> counts(StreamsBuilder builder) {
			KStream<String, String> input = builder.stream("shutdown-input", Consumed.with(Serdes.String(), Serdes.String()));
			input.groupByKey()
				.count(Materialized.<String, Long>as(Stores.persistentKeyValueStore("counts"))
					.withKeySerde(Serdes.String())
					.withValueSerde(Serdes.Long()))
				.toStream()
				.to("shutdown-output", Produced.with(Serdes.String(), Serdes.Long()));
			return input;
		}

	}

}
