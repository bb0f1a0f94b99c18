package io.github.incrementalrebalance.autoconfigure;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.testkit.ExactCountVerifier;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.TestCertificates;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.context.ConfigurableApplicationContext;

import static io.github.incrementalrebalance.autoconfigure.CountingBootApplication.activeTasks;
import static io.github.incrementalrebalance.autoconfigure.CountingBootApplication.running;
import static io.github.incrementalrebalance.autoconfigure.CountingBootApplication.uri;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Spring Boot applications whose Kafka clients are secured the Boot way, with an SSL bundle of PEM files
 * ({@code spring.kafka.ssl.bundle}), against a broker that requires each client's certificate: Kafka Streams and the
 * control topic's clients alike get the bundle, health reports UP, and a leave over HTTP drains through learners.
 */
@Tag(TestTags.BROKER)
@Tag(TestTags.CLIENT_LINE)
class SslBundleIntegrationTests {

	private static final String APPLICATION = "bundle-app";

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.withMutualTls();

	@TempDir
	Path stateRoot;

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void applicationSecuredWithAPemBundleReportsUpAndDrainsOverHttp() throws Exception {
		broker.createTopics(4, APPLICATION + "-input", APPLICATION + "-output");
		try (ConfigurableApplicationContext a = start("a"); ConfigurableApplicationContext b = start("b");
				TrackingProducer producer = new TrackingProducer(broker.userClientConfig(), APPLICATION + "-input")) {
			await("both run a share of the tasks, their control topic read").atMost(Duration.ofMinutes(1))
				.until(() -> running(a) && running(b) && !activeTasks(b).isEmpty()
						&& activeTasks(a).size() + activeTasks(b).size() == 4 && get(a, "/actuator/health/rebalance")
							.statusCode() == 200 && get(b, "/actuator/health/rebalance").statusCode() == 200);
			assertThat(get(b, "/actuator/health/rebalance").body()).contains("\"status\":\"UP\"");
			producer.load(4, 2_000, 1);
			List<MemberState> states = new CopyOnWriteArrayList<>();
			b.getBean(MemberRuntimes.class).all().get(0).addStateListener(states::add);

			HttpResponse<String> leave = this.http.send(HttpRequest.newBuilder(uri(b, "/actuator/rebalance/leave"))
				.header("Content-Type", "application/json")
				.POST(HttpRequest.BodyPublishers.ofString("{\"wait\":\"60s\"}"))
				.build(), HttpResponse.BodyHandlers.ofString());

			assertThat(leave.statusCode()).isEqualTo(202);
			assertThat(leave.body()).contains("\"state\":\"CLOSED\"").contains("\"outcome\":{\"outcome\":\"drained\",\"reason\":\"learners-ready\",\"tasksMovedCold\":0");
			assertThat(states).startsWith(MemberState.LEAVING, MemberState.DRAINED);
			await("a runs every task").atMost(Duration.ofSeconds(30))
				.until(() -> running(a) && activeTasks(a).size() == 4);
			ExactCountVerifier.assertExactCounts(broker.userClientConfig(), APPLICATION + "-output",
					producer.acknowledgedCounts(), Duration.ofMinutes(2));
		}
	}

	private ConfigurableApplicationContext start(String name) {
		TestCertificates certificates = broker.certificates();
		return CountingBootApplication.start(broker, APPLICATION, name, this.stateRoot, null, true,
				"spring.kafka.security.protocol=SSL", "spring.kafka.ssl.bundle=kafka",
				"spring.ssl.bundle.pem.kafka.keystore.certificate=file:" + certificates.clientCertificatePem(),
				"spring.ssl.bundle.pem.kafka.keystore.private-key=file:" + certificates.clientPrivateKeyPem(),
				"spring.ssl.bundle.pem.kafka.truststore.certificate=file:" + certificates.brokerCertificatePem(),
				"management.endpoints.web.exposure.include=health,rebalance",
				"management.endpoint.health.show-details=always",
				"management.endpoint.rebalance.access=unrestricted");
	}

	private HttpResponse<String> get(ConfigurableApplicationContext context, String path)
			throws IOException, InterruptedException {
		return this.http.send(HttpRequest.newBuilder(uri(context, path)).GET().build(),
				HttpResponse.BodyHandlers.ofString());
	}

}
