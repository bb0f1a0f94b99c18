package io.github.incrementalrebalance.autoconfigure;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;

import io.github.incrementalrebalance.testkit.ExactCountVerifier;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.FaultProxy;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.context.ConfigurableApplicationContext;

import static io.github.incrementalrebalance.autoconfigure.CountingBootApplication.running;
import static io.github.incrementalrebalance.autoconfigure.CountingBootApplication.uri;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An application starts as plain spring-kafka does while its broker cannot be reached: the control topic is made
 * sure of and read in the background, health says why it is not read meanwhile (the liveness probe stays up), and once
 * the bootstrap address answers the topic is created, read, and the application counts.
 */
@Tag(TestTags.BROKER)
class StartWithoutBrokerIntegrationTests {

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	private final HttpClient http = HttpClient.newHttpClient();

	@TempDir
	Path stateRoot;

	@Test
	void contextStartsWithoutABrokerAndOpensTheControlTopicOnceTheBrokerAnswers() throws Exception {
		broker.createTopics(2, "late-app-input", "late-app-output");
		String controlTopic = "late-app-rebalance-control";
		try (FaultProxy bootstrap = new FaultProxy(broker.bootstrapServers())) {
			// the context starts while nothing answers at the bootstrap address, which opens only afterwards: the
			// start waited the control topic's timeout at most (MemberStartWaitTests times that wait), not for the
			// cluster; how long the whole context took says more of the machine's load than of the library
			try (ConfigurableApplicationContext app = CountingBootApplication.start(bootstrap.address(), "late-app",
					"a", this.stateRoot, null, true, "management.endpoints.web.exposure.include=health",
					"management.endpoint.health.show-details=always",
					"management.endpoint.health.probes.enabled=true")) {
				HttpResponse<String> health = get(app, "/actuator/health/rebalance");
				assertThat(health.statusCode()).as("it processes once the cluster answers: no reason to restart it")
					.isEqualTo(200);
				// "not checked yet", or, once the check gave up, that the cluster could not be reached
				assertThat(health.body()).contains("\"status\":\"UP\"")
					.containsPattern("\"problem\":\"[^\"]*" + controlTopic);
				assertThat(get(app, "/actuator/health/liveness").statusCode()).isEqualTo(200);
				assertThat(broker.admin().listTopics().names().get()).doesNotContain(controlTopic);

				bootstrap.open();

				await("the control topic created and read, Kafka Streams running").atMost(Duration.ofMinutes(2))
					.until(() -> !get(app, "/actuator/health/rebalance").body().contains("\"problem\"") && running(app));
				assertThat(broker.admin().listTopics().names().get()).contains(controlTopic);
				try (TrackingProducer producer = new TrackingProducer(broker.bootstrapServers(), "late-app-input")) {
					producer.load(2, 200, 2);
					ExactCountVerifier.assertExactCounts(broker.bootstrapServers(), "late-app-output",
							producer.acknowledgedCounts(), Duration.ofMinutes(1));
				}
			}
		}
	}

	private HttpResponse<String> get(ConfigurableApplicationContext context, String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(uri(context, path)).GET().build(),
				HttpResponse.BodyHandlers.ofString());
	}

}
