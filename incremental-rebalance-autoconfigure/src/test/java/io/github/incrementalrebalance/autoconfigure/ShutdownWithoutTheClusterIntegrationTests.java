package io.github.incrementalrebalance.autoconfigure;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.incrementalrebalance.testkit.FaultProxy;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.TestTags;
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
 * An instance whose cluster stopped answering is shut down (SIGTERM) while HTTP clients poll its endpoint, as the live
 * page and a metrics scrape do: every answer still comes at once, and the shutdown ends within Spring's shutdown phase,
 * well before Kubernetes' grace period kills the process. Answers that waited on the cluster held the web server's
 * graceful shutdown, which waits for requests in flight.
 */
@Tag(TestTags.BROKER)
class ShutdownWithoutTheClusterIntegrationTests {

	/** Spring's {@code spring.lifecycle.timeout-per-shutdown-phase} default, and Kubernetes' grace period. */
	private static final Duration SHUTDOWN_PHASE = Duration.ofSeconds(30);

	/**
	 * An answer that asked the cluster waits for the admin client's timeout (30 s here); one from what the member
	 * last read takes milliseconds, a second or so on a loaded machine.
	 */
	private static final Duration LONGEST_ANSWER = Duration.ofSeconds(5);

	private static final List<String> POLLED = List.of("/actuator/rebalance", "/actuator/rebalance/tasks",
			"/actuator/rebalance/group", "/actuator/health", "/actuator/prometheus");

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.withFaultProxy();

	@TempDir
	Path stateRoot;

	@Test
	void anInstanceWhoseClusterIsGoneAnswersItsPollersAndShutsDownWithinTheShutdownPhase() throws Exception {
		broker.createTopics(4, "gone-app-input", "gone-app-output");
		HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
		ExecutorService pollers = Executors.newFixedThreadPool(POLLED.size());
		AtomicBoolean polling = new AtomicBoolean(true);
		AtomicReference<Duration> longest = new AtomicReference<>(Duration.ZERO);
		try (ConfigurableApplicationContext a = start("a"); ConfigurableApplicationContext b = start("b")) {
			await("both run, their control topic read").atMost(Duration.ofMinutes(1))
				.until(() -> running(a) && running(b) && !get(http, b, "/actuator/health/rebalance").contains("problem"));
			await("b's standbys' lags read").atMost(Duration.ofSeconds(30))
				.until(() -> lagsAgeMillis(get(http, b, "/actuator/rebalance/tasks")) >= 0);

			try (FaultProxy.Fault gone = broker.proxy().blackHole((clientId) -> true)) {
				for (String path : POLLED) {
					pollers.execute(() -> {
						while (polling.get()) {
							long asked = System.nanoTime();
							try {
								get(http, b, path);
							}
							catch (Exception ex) {
								// the web server stopping refuses the connection
								return;
							}
							Duration took = Duration.ofNanos(System.nanoTime() - asked);
							longest.accumulateAndGet(took, (one, other) -> (one.compareTo(other) > 0) ? one : other);
						}
					});
				}
				await("b knows its cluster is gone").atMost(Duration.ofSeconds(30))
					.until(() -> b.getBean(MemberRuntimes.class).all().get(0).controlTopicProblem().isPresent());

				long closing = System.nanoTime();
				b.close();
				Duration took = Duration.ofNanos(System.nanoTime() - closing);
				polling.set(false);
				System.out.printf("Shutdown of an instance whose cluster is gone, polled over HTTP: %d ms; longest "
						+ "answer %d ms%n", took.toMillis(), longest.get().toMillis());
				assertThat(took).as("the shutdown, the cluster gone, HTTP clients polling").isLessThan(SHUTDOWN_PHASE);
				assertThat(longest.get()).as("the longest answer while the cluster was gone").isLessThan(LONGEST_ANSWER);
			}
		}
		finally {
			polling.set(false);
			pollers.shutdownNow();
		}
	}

	private ConfigurableApplicationContext start(String name) {
		return CountingBootApplication.start(broker.proxiedBootstrapServers(), "gone-app", name, this.stateRoot, null, true,
				"spring.kafka.streams.properties.num.standby.replicas=1",
				"management.endpoints.web.exposure.include=health,rebalance,prometheus",
				"management.endpoint.health.show-details=always");
	}

	/** The age of b's lags in the endpoint's tasks, -1 before the first read. */
	private static long lagsAgeMillis(String tasks) {
		Matcher age = Pattern.compile("\"lagsAgeMillis\":(\\d+)").matcher(tasks);
		return age.find() ? Long.parseLong(age.group(1)) : -1;
	}

	private static String get(HttpClient http, ConfigurableApplicationContext context, String path) throws Exception {
		return http.send(HttpRequest.newBuilder(uri(context, path)).timeout(Duration.ofSeconds(60)).GET().build(),
				HttpResponse.BodyHandlers.ofString()).body();
	}

}
