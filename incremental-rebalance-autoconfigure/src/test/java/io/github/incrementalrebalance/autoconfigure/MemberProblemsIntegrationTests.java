package io.github.incrementalrebalance.autoconfigure;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.github.incrementalrebalance.control.ControlTopic;
import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.TestTags;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.context.ConfigurableApplicationContext;

import static io.github.incrementalrebalance.autoconfigure.CountingBootApplication.running;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a member that cannot hand its tasks to warm learners says, over HTTP, two Spring Boot applications in one JVM
 * on a real broker: a control topic that cannot be read, two members with one instance id, a leave the leader never
 * answers. Each is said in health (and its gauge), and the leave is refused or waits, until the cause is gone.
 */
@Tag(TestTags.BROKER)
class MemberProblemsIntegrationTests {

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	private final LeaveEndpointClient client = new LeaveEndpointClient();

	@TempDir
	Path stateRoot;

	@Test
	void controlTopicThatCannotBeReadTakesHealthDownWhereAskedAndRefusesTheLeaveUntilItIsBack() throws Exception {
		broker.createTopics(4, "fragile-app-input", "fragile-app-output");
		String controlTopic = "fragile-app-rebalance-control";
		try (ConfigurableApplicationContext a = startFragile("a"); ConfigurableApplicationContext b = startFragile("b")) {
			await("both members in the group plan").atMost(Duration.ofMinutes(1))
				.until(() -> this.client.get(a, "/actuator/rebalance/group").body().contains("\"instanceId\":\"b\"")
						&& this.client.get(a, "/actuator/rebalance/group").body().contains("\"instanceId\":\"a\""));
			assertThat(this.client.get(a, "/actuator/health/rebalance").statusCode()).isEqualTo(200);

			broker.admin().deleteTopics(List.of(controlTopic)).all().get();

			await("rebalance health down").atMost(Duration.ofMinutes(1))
				.until(() -> this.client.get(a, "/actuator/health/rebalance").statusCode() == 503);
			assertThat(this.client.get(a, "/actuator/health/rebalance").body()).contains("\"status\":\"DOWN\"")
				.contains("\"problem\":\"control topic " + controlTopic + " cannot be read");
			assertThat(problemGauge(a, "control-topic")).as("the gauge an alert reads, with health").isEqualTo(1.0);
			assertThat(this.client.get(a, "/actuator/health/liveness").statusCode()).as("not in the liveness group")
				.isEqualTo(200);
			HttpResponse<String> refused = this.client.post(a, "{}");
			assertThat(refused.statusCode()).isEqualTo(503);
			assertThat(refused.body()).contains("\"reason\":\"control-topic-unavailable\"");
			assertThat(a.getBean(MemberRuntimes.class).all().get(0).state()).isEqualTo(MemberState.STABLE);

			ControlTopic.ensureExists(broker.admin(), controlTopic, -1, true, Duration.ofSeconds(30));

			await("rebalance health up again").atMost(Duration.ofMinutes(1))
				.until(() -> this.client.get(a, "/actuator/health/rebalance").statusCode() == 200
						&& this.client.get(b, "/actuator/health/rebalance").statusCode() == 200);
			assertThat(problemGauge(a, "control-topic")).isZero();
			HttpResponse<String> leave = this.client.post(a, "{\"wait\":\"90s\"}");
			assertThat(leave.statusCode()).as(leave.body()).isEqualTo(202);
			assertThat(leave.body()).contains("\"state\":\"CLOSED\"")
				.contains("\"outcome\":{\"outcome\":\"drained\",\"reason\":\"learners-ready\"");
		}
	}

	@Test
	void twoMembersWithOneInstanceIdSayItInHealthAndCannotBeAskedToLeave() throws Exception {
		broker.createTopics(2, "twin-app-input", "twin-app-output");
		try (ConfigurableApplicationContext a = startTwin("a"); ConfigurableApplicationContext b = startTwin("b")) {
			await("the leader found the twins").atMost(Duration.ofMinutes(1))
				.until(() -> twinSaid(a) && twinSaid(b));
			HttpResponse<String> health = this.client.get(a, "/actuator/health/rebalance");
			assertThat(health.statusCode()).as("both still process: nothing for a load balancer to act on")
				.isEqualTo(200);
			assertThat(health.body()).contains("\"status\":\"UP\"")
				.contains("\"duplicateInstanceId\":true")
				.contains("\"problem\":\"instance id twin is used by another live member");
			assertThat(problemGauge(a, "duplicate-instance-id")).isEqualTo(1.0);
			assertThat(problemGauge(a, "control-topic")).isZero();
			assertThat(this.client.get(a, "/actuator/health/liveness").statusCode()).as("not in the liveness group")
				.isEqualTo(200);
			HttpResponse<String> refused = this.client.post(a, "{}");
			assertThat(refused.statusCode()).isEqualTo(409);
			assertThat(refused.body()).contains("\"reason\":\"duplicate-instance-id\"");
			assertThat(a.getBean(MemberRuntimes.class).all().get(0).state()).isEqualTo(MemberState.STABLE);
		}
	}

	/**
	 * A leader on Kafka's assignor never answers a leave: the leave keeps asking, and the endpoint and health say why
	 * once its acknowledgement timeout passed, until it is cancelled.
	 */
	@Test
	void leaveTheGroupDoesNotAnswerSaysWhyItWaitsInTheEndpointAndHealthUntilCancelled() throws Exception {
		broker.createTopics(2, "waiting-app-input", "waiting-app-output");
		try (ConfigurableApplicationContext a = startWaiting("a", "incremental-rebalance.mode=upgrading")) {
			await("a leads").atMost(Duration.ofMinutes(1)).until(() -> running(a));
			try (ConfigurableApplicationContext b = startWaiting("b",
					"incremental-rebalance.leave.acknowledgement-timeout=2s")) {
				await("both run").atMost(Duration.ofMinutes(1)).until(() -> running(a) && running(b));
				assertThat(this.client.post(b, "{}").statusCode()).isEqualTo(202);

				await("b says why its leave waits").atMost(Duration.ofSeconds(30))
					.until(() -> this.client.get(b, "/actuator/rebalance").body().contains("\"waiting\""));
				assertThat(this.client.get(b, "/actuator/rebalance").body()).contains("\"state\":\"LEAVING\"")
					.contains("\"waiting\":\"unanswered for more than PT2S: the leader published no learner plan");
				HttpResponse<String> health = this.client.get(b, "/actuator/health/rebalance");
				assertThat(health.statusCode()).isEqualTo(200);
				assertThat(health.body()).contains("\"leaveWaiting\":\"unanswered for more than PT2S");
				assertThat(b.getBean(MemberRuntimes.class).all().get(0).drainOutcome()).as("nothing moved cold")
					.isEmpty();

				HttpResponse<String> cancel = this.client.delete(b);
				assertThat(cancel.statusCode()).isEqualTo(200);
				assertThat(cancel.body()).contains("\"state\":\"STABLE\"").doesNotContain("\"waiting\"");
				assertThat(this.client.get(b, "/actuator/health/rebalance").body()).doesNotContain("leaveWaiting");
			}
		}
	}

	private ConfigurableApplicationContext startWaiting(String name, String setting) {
		return CountingBootApplication.start(broker, "waiting-app", name, this.stateRoot, null, true, setting,
				"management.endpoints.web.exposure.include=rebalance,health",
				"management.endpoint.health.show-details=always", "management.endpoint.rebalance.access=unrestricted");
	}

	private boolean twinSaid(ConfigurableApplicationContext context) throws Exception {
		return this.client.get(context, "/actuator/health/rebalance").body().contains("\"duplicateInstanceId\":true");
	}

	private static double problemGauge(ConfigurableApplicationContext context, String problem) {
		return context.getBean(MeterRegistry.class)
			.get("incremental.rebalance.problem")
			.tag("problem", problem)
			.gauge()
			.value();
	}

	private ConfigurableApplicationContext startTwin(String name) {
		return CountingBootApplication.start(broker, "twin-app", name, this.stateRoot, null, true,
				"incremental-rebalance.instance-id=twin", "incremental-rebalance.drain.on-drained=stop-streams",
				"management.endpoints.web.exposure.include=rebalance,health",
				"management.endpoint.health.show-details=always", "management.endpoint.rebalance.access=unrestricted");
	}

	private ConfigurableApplicationContext startFragile(String name) {
		// an operator who routes on it: by default a member that still processes stays UP
		return CountingBootApplication.start(broker, "fragile-app", name, this.stateRoot, null, true,
				"incremental-rebalance.drain.on-drained=stop-streams", "incremental-rebalance.health.problem-status=down",
				"management.endpoints.web.exposure.include=rebalance,health",
				"management.endpoint.health.show-details=always", "management.endpoint.rebalance.access=unrestricted");
	}

}
