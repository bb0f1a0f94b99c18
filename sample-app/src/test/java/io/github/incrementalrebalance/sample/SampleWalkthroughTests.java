package io.github.incrementalrebalance.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import io.github.incrementalrebalance.autoconfigure.MemberRuntimes;
import io.github.incrementalrebalance.member.DrainOutcome;
import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.testkit.ExactCountVerifier;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.processor.TaskId;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The walk-through (docs/walkthrough.md) on the sample application as users run it (its own configuration, Spring
 * Security on): two instances, a leave asked over HTTP by the operator, the instance drains and closes, the other runs
 * every task with exact counts; health is open, a leave without credentials or without the operator's role is
 * refused.
 */
@Tag(TestTags.BROKER)
class SampleWalkthroughTests {

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	private static final String OPERATOR = "operator:operator-secret";

	private static final String VIEWER = "viewer:viewer-secret";

	private final HttpClient http = HttpClient.newHttpClient();

	@TempDir
	Path stateRoot;

	@Test
	void operatorAsksAnInstanceToLeaveItDrainsAndClosesAndTheOtherRunsEveryTask() throws Exception {
		try (ConfigurableApplicationContext a = start("a"); ConfigurableApplicationContext b = start("b");
				TrackingProducer producer = new TrackingProducer(broker.bootstrapServers(), PageViews.INPUT)) {
			await("both instances run a share of the six tasks").atMost(Duration.ofMinutes(1))
				.until(() -> !activeTasks(a).isEmpty() && !activeTasks(b).isEmpty()
						&& activeTasks(a).size() + activeTasks(b).size() == PageViews.PARTITIONS);
			producer.load(PageViews.PARTITIONS, 500, 2);
			MemberRuntime ofA = a.getBean(MemberRuntimes.class).all().get(0);

			assertThat(get(a, "/actuator/health/readiness", null).statusCode()).as("probes need no credentials")
				.isEqualTo(200);
			assertThat(leave(a, null).statusCode()).as("no credentials").isEqualTo(401);
			assertThat(get(a, "/actuator/rebalance", null).statusCode()).as("reads need a user").isEqualTo(401);
			assertThat(get(a, "/actuator/rebalance", VIEWER).statusCode()).isEqualTo(200);
			assertThat(leave(a, VIEWER).statusCode()).as("a user without the operator's role").isEqualTo(403);
			assertThat(ofA.drainOutcome()).as("nothing was asked of a").isEmpty();

			HttpResponse<String> accepted = leave(a, OPERATOR);
			assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
			assertThat(accepted.body()).contains("\"instanceId\":\"a\"").contains("\"state\":\"LEAVING\"");

			await("a drained and its application closed").atMost(Duration.ofMinutes(2)).until(() -> !a.isActive());
			assertThat(ofA.drainOutcome()).map(DrainOutcome::kind).contains(DrainOutcome.Kind.DRAINED);
			await("b runs every task").atMost(Duration.ofMinutes(1))
				.until(() -> activeTasks(b).size() == PageViews.PARTITIONS);
			producer.load(PageViews.PARTITIONS, 500, 1);
			ExactCountVerifier.assertExactCounts(broker.bootstrapServers(), PageViews.OUTPUT,
					producer.acknowledgedCounts(), Duration.ofMinutes(2));
		}
	}

	private ConfigurableApplicationContext start(String instance) {
		// arguments, as on a command line: they win over the application's own application.yml
		return new SpringApplicationBuilder(SampleApplication.class).run("--server.port=0",
				"--spring.kafka.bootstrap-servers=" + broker.bootstrapServers(),
				"--spring.kafka.streams.state-dir=" + this.stateRoot.resolve(instance),
				// a group of its own on the JVM's shared broker
				"--spring.kafka.streams.application-id=walkthrough",
				"--spring.kafka.streams.properties.consumer.heartbeat.interval.ms=500",
				"--spring.kafka.streams.properties.consumer.session.timeout.ms=6000",
				"--incremental-rebalance.instance-id=" + instance, "--sample.generate=false",
				"--sample.security.operator-password=operator-secret",
				"--sample.security.viewer-password=viewer-secret");
	}

	private static Set<TaskId> activeTasks(ConfigurableApplicationContext context) {
		if (!context.isActive()) {
			return Set.of();
		}
		KafkaStreams streams = context.getBean(StreamsBuilderFactoryBean.class).getKafkaStreams();
		if (streams == null || streams.state() != KafkaStreams.State.RUNNING) {
			return Set.of();
		}
		return streams.metadataForLocalThreads()
			.stream()
			.map(ThreadMetadata::activeTasks)
			.flatMap(Set::stream)
			.map((task) -> task.taskId())
			.collect(Collectors.toSet());
	}

	private HttpResponse<String> get(ConfigurableApplicationContext context, String path, @Nullable String user)
			throws IOException, InterruptedException {
		return this.http.send(request(context, path, user).GET().build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> leave(ConfigurableApplicationContext context, @Nullable String user)
			throws IOException, InterruptedException {
		return this.http.send(request(context, "/actuator/rebalance/leave", user)
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{}"))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private static HttpRequest.Builder request(ConfigurableApplicationContext context, String path,
			@Nullable String user) {
		HttpRequest.Builder request = HttpRequest.newBuilder(
				URI.create("http://localhost:" + context.getEnvironment().getProperty("local.server.port") + path));
		Optional.ofNullable(user)
			.ifPresent((credentials) -> request.header("Authorization", "Basic "
					+ Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8))));
		return request;
	}

}
