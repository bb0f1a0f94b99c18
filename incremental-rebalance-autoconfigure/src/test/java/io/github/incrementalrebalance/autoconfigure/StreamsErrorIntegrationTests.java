package io.github.incrementalrebalance.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.TestTags;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.LivenessState;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.kafka.annotation.EnableKafkaStreams;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Kafka Streams driven to {@code ERROR} by a record its topology cannot process (Kafka's default handler shuts the
 * client down): the instance processes nothing and is out of its group, and readiness, liveness (when asked) and the
 * {@code rebalance} contributor say so; a member that drained and closed on purpose is not reported so.
 */
@Tag(TestTags.BROKER)
class StreamsErrorIntegrationTests {

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@Test
	void kafkaStreamsInErrorMakeTheInstanceUnreadyAndItsHealthDownWhereADrainedCloseDoesNot() {
		broker.createTopics(2, "poison-app-input", "drained-app-input");
		try (ConfigurableApplicationContext failing = start("poison-app", "failing",
				"incremental-rebalance.health.streams-error=liveness");
				ConfigurableApplicationContext drained = start("drained-app", "drained",
						"incremental-rebalance.health.streams-error=liveness",
						"incremental-rebalance.drain.on-drained=stop-streams");
				KafkaProducer<String, String> producer = new KafkaProducer<>(
						Map.of("bootstrap.servers", broker.bootstrapServers()), new StringSerializer(),
						new StringSerializer())) {
			await("both run").atMost(Duration.ofMinutes(1))
				.until(() -> state(failing) == KafkaStreams.State.RUNNING && state(drained) == KafkaStreams.State.RUNNING);
			assertThat(readiness(failing)).isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
			assertThat(health(failing).getStatus()).isEqualTo(Status.UP);

			producer.send(new ProducerRecord<>("poison-app-input", "key", "poison"));
			producer.flush();

			await("the poison record shuts the client down").atMost(Duration.ofMinutes(1))
				.until(() -> state(failing) == KafkaStreams.State.ERROR);
			assertThat(readiness(failing)).isEqualTo(ReadinessState.REFUSING_TRAFFIC);
			assertThat(failing.getBean(ApplicationAvailability.class).getLivenessState())
				.as("health.streams-error=liveness").isEqualTo(LivenessState.BROKEN);
			Health health = health(failing);
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails().get("poison-app")).asString()
				.contains("problem=Kafka Streams of failing are in ERROR");

			MemberRuntime leaving = drained.getBean(MemberRuntimes.class).all().get(0);
			assertThat(leaving.leave(Optional.empty(), "test", true)).isTrue();
			await("drained and closed").atMost(Duration.ofMinutes(1))
				.until(() -> leaving.state() == MemberState.CLOSED);
			assertThat(state(drained)).isEqualTo(KafkaStreams.State.NOT_RUNNING);
			assertThat(drained.getBean(ApplicationAvailability.class).getLivenessState())
				.as("a member that left on purpose").isEqualTo(LivenessState.CORRECT);
			assertThat(health(drained).getStatus()).isEqualTo(Status.UP);
			assertThat(health(drained).getDetails().get("drained-app")).asString().doesNotContain("problem");
		}
	}

	private static KafkaStreams.State state(ConfigurableApplicationContext context) {
		KafkaStreams streams = context.getBean(StreamsBuilderFactoryBean.class).getKafkaStreams();
		return (streams != null) ? streams.state() : KafkaStreams.State.NOT_RUNNING;
	}

	private static ReadinessState readiness(ConfigurableApplicationContext context) {
		return context.getBean(ApplicationAvailability.class).getReadinessState();
	}

	private static Health health(ConfigurableApplicationContext context) {
		return context.getBean(RebalanceHealthIndicator.class).health(true);
	}

	private ConfigurableApplicationContext start(String application, String instance, String... properties) {
		return new SpringApplicationBuilder(PoisonedApplication.class).web(WebApplicationType.NONE)
			.properties("spring.kafka.bootstrap-servers=" + broker.bootstrapServers(),
					"spring.kafka.streams.application-id=" + application,
					"spring.kafka.streams.state-dir=" + this.stateRoot.resolve(instance),
					"spring.kafka.streams.properties.consumer.heartbeat.interval.ms=500",
					"spring.kafka.streams.properties.consumer.session.timeout.ms=6000",
					"incremental-rebalance.instance-id=" + instance)
			.properties(properties)
			.run();
	}

	/** A topology that cannot process the value {@code poison} of {@code <application id>-input}. */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	@EnableKafkaStreams
	static class PoisonedApplication {

		@Bean
		KStream<String, String> poisoned(StreamsBuilder builder, Environment environment) {
			KStream<String, String> input = builder.stream(
					environment.getRequiredProperty("spring.kafka.streams.application-id") + "-input",
					Consumed.with(Serdes.String(), Serdes.String()));
			input.foreach((key, value) -> {
				if ("poison".equals(value)) {
					throw new IllegalStateException("a record this topology cannot process");
				}
			});
			return input;
		}

	}

}
