package io.github.incrementalrebalance.autoconfigure;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;

import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.testkit.ExactCountVerifier;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.RestoreThrottle;
import io.github.incrementalrebalance.testkit.ThrottledRestoreSupplier;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.internals.DefaultKafkaClientSupplier;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.annotation.EnableKafkaStreams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code /actuator/rebalance} over HTTP, two Spring Boot applications in one JVM on a real broker: a (leave allowed)
 * and b (the endpoint's default, read-only), their restores throttled until the test releases them.
 */
class RebalanceEndpointIntegrationTests {

	@RegisterExtension
	static final KafkaBroker broker = new KafkaBroker();

	/** Slows both applications' restores, so a drain lasts long enough to look at and cancel. */
	private static final RestoreThrottle THROTTLE = RestoreThrottle.of(500);

	private final HttpClient http = HttpClient.newHttpClient();

	@TempDir
	Path stateRoot;

	@Test
	void readsLeavesAndCancelsWithTheirStatusCodes() throws Exception {
		broker.createTopics(4, "endpoint-input", "endpoint-output");
		try (ConfigurableApplicationContext a = start("a", "unrestricted");
				ConfigurableApplicationContext b = start("b", "read-only")) {
			await("both members in the group plan").atMost(Duration.ofMinutes(1))
				.until(() -> get(a, "/actuator/rebalance/group").body().contains("\"instanceId\":\"b\""));

			HttpResponse<String> members = get(a, "/actuator/rebalance");
			assertThat(members.statusCode()).isEqualTo(200);
			assertThat(members.body()).contains("\"instanceId\":\"a\"").contains("\"state\":\"STABLE\"");
			await().atMost(Duration.ofSeconds(30)).until(() -> get(a, "/actuator/rebalance/tasks").body()
				.contains("\"state\":\"ACTIVE\""));
			assertThat(get(a, "/actuator/rebalance/group").body()).contains("\"instanceId\":\"a\"");

			assertThat(post(b, "{}").statusCode()).as("leave on a read-only endpoint").isEqualTo(405);
			HttpResponse<String> bad = post(a, "{\"timeout\":\"soon\"}");
			assertThat(bad.statusCode()).isEqualTo(400);
			assertThat(bad.body()).contains("timeout 'soon' is not a duration");
			assertThat(delete(a).statusCode()).as("cancel with nothing leaving").isEqualTo(409);

			try (TrackingProducer producer = new TrackingProducer(broker.bootstrapServers(), "endpoint-input")) {
				producer.load(4, 20_000, 1);
				ExactCountVerifier.assertExactCounts(broker.bootstrapServers(), "endpoint-output",
						producer.acknowledgedCounts(), Duration.ofMinutes(2));
			}
			assertThat(post(a, "{\"timeout\":\"5m\"}").statusCode()).isEqualTo(202);
			await("a's tasks being learned on b").atMost(Duration.ofMinutes(1))
				.until(() -> get(a, "/actuator/rebalance/tasks").body().contains("\"state\":\"BEING_LEARNED\"")
						&& get(b, "/actuator/rebalance/tasks").body().contains("\"state\":\"LEARNING\""));
			assertThat(get(b, "/actuator/rebalance/tasks").body()).contains("\"ready\":false");
			assertThat(a.getBean(ApplicationAvailability.class).getReadinessState())
				.isEqualTo(ReadinessState.REFUSING_TRAFFIC);
			HttpResponse<String> cancel = delete(a);
			assertThat(cancel.statusCode()).isEqualTo(200);
			assertThat(cancel.body()).contains("\"state\":\"STABLE\"");
			assertThat(a.getBean(ApplicationAvailability.class).getReadinessState())
				.isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
			THROTTLE.release();

			HttpResponse<String> leave = post(a, "{\"timeout\":\"1m\",\"wait\":\"30s\"}");
			assertThat(leave.statusCode()).isEqualTo(202);
			assertThat(leave.body()).contains("\"state\":\"CLOSED\"");
			assertThat(a.getBean(MemberRuntimes.class).all().get(0).state()).isEqualTo(MemberState.CLOSED);
			assertThat(a.getBean(ApplicationAvailability.class).getReadinessState())
				.isEqualTo(ReadinessState.REFUSING_TRAFFIC);
			HttpResponse<String> health = get(a, "/actuator/health");
			assertThat(health.statusCode()).as("out of service: readiness refuses traffic").isEqualTo(503);
			assertThat(health.body()).contains("\"readinessState\":{\"status\":\"OUT_OF_SERVICE\"}")
				.contains("\"rebalance\":{\"details\":{\"endpoint-app\":{\"instanceId\":\"a\",\"state\":\"CLOSED\"");
			assertThat(get(a, "/actuator/health/liveness").statusCode()).as("a drained instance stays live")
				.isEqualTo(200);
			assertThat(post(a, "{}").statusCode()).as("a repeat").isEqualTo(200);
		}
	}

	private ConfigurableApplicationContext start(String name, String access) {
		return new SpringApplicationBuilder(EndpointApplication.class)
			.properties("server.port=0", "spring.kafka.bootstrap-servers=" + broker.bootstrapServers(),
					"spring.kafka.streams.application-id=endpoint-app",
					"spring.kafka.streams.state-dir=" + this.stateRoot.resolve(name),
					"spring.kafka.streams.properties.consumer.heartbeat.interval.ms=500",
					"spring.kafka.streams.properties.consumer.session.timeout.ms=6000",
					// start-up moves leave task directories behind; cleaned, the learners start cold
					"spring.kafka.streams.properties.state.cleanup.delay.ms=1000",
					"spring.kafka.streams.properties.acceptable.recovery.lag=1000",
					"incremental-rebalance.instance-id=" + name, "incremental-rebalance.on-drained=stop-streams",
					"management.endpoints.web.exposure.include=rebalance,health",
					"management.endpoint.health.show-details=always",
					"management.endpoint.rebalance.access=" + access)
			.run();
	}

	private HttpResponse<String> get(ConfigurableApplicationContext context, String path)
			throws IOException, InterruptedException {
		return this.http.send(HttpRequest.newBuilder(uri(context, path)).GET().build(),
				HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> post(ConfigurableApplicationContext context, String body)
			throws IOException, InterruptedException {
		return this.http.send(HttpRequest.newBuilder(uri(context, "/actuator/rebalance/leave"))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> delete(ConfigurableApplicationContext context)
			throws IOException, InterruptedException {
		return this.http.send(HttpRequest.newBuilder(uri(context, "/actuator/rebalance/leave")).DELETE().build(),
				HttpResponse.BodyHandlers.ofString());
	}

	private static URI uri(ConfigurableApplicationContext context, String path) {
		return URI.create("http://localhost:" + context.getEnvironment().getProperty("local.server.port") + path);
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@EnableKafkaStreams
	static class EndpointApplication {

		@Bean
		KafkaClientSupplier throttledClients() {
			return new ThrottledRestoreSupplier(new DefaultKafkaClientSupplier(), THROTTLE);
		}

		@Bean
		KStream<String, String> counts(StreamsBuilder builder) {
			KStream<String, String> input = builder.stream("endpoint-input",
					Consumed.with(Serdes.String(), Serdes.String()));
			input.groupByKey()
				.count(Materialized.<String, Long>as(Stores.persistentKeyValueStore("counts"))
					.withKeySerde(Serdes.String())
					.withValueSerde(Serdes.Long()))
				.toStream()
				.to("endpoint-output", Produced.with(Serdes.String(), Serdes.Long()));
			return input;
		}

	}

}
