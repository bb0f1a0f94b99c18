package io.github.incrementalrebalance.autoconfigure;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.incrementalrebalance.control.PlanEpoch;
import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.testkit.ExactCountVerifier;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.RestoreThrottle;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.MissingNode;

import static io.github.incrementalrebalance.autoconfigure.CountingBootApplication.activeTasks;
import static io.github.incrementalrebalance.autoconfigure.CountingBootApplication.removedStreams;
import static io.github.incrementalrebalance.autoconfigure.CountingBootApplication.running;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code /actuator/rebalance} over HTTP, two Spring Boot applications in one JVM on a real broker: a (leave allowed)
 * and b (the endpoint's default, read-only), their restores throttled until the test releases them; and a leave
 * that ends with the application context closed ({@code drain.on-drained=shutdown}, the default).
 */
@Tag(TestTags.BROKER)
class RebalanceEndpointIntegrationTests {

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	/** Slows both applications' restores, so a drain lasts long enough to look at and cancel. */
	private static final RestoreThrottle THROTTLE = RestoreThrottle.of(500);

	private final LeaveEndpointClient client = new LeaveEndpointClient();

	@TempDir
	Path stateRoot;

	/**
	 * The series of a Prometheus scrape with their labels.
	 */
	private static void exportedSeries(String scrape, Map<String, Set<String>> exported) {
		Pattern sample = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{([^}]*)})? ");
		Pattern label = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"");
		for (String line : scrape.split("\n")) {
			Matcher matcher = sample.matcher(line);
			if (line.startsWith("#") || !matcher.find()) {
				continue;
			}
			Set<String> labels = exported.computeIfAbsent(matcher.group(1), (series) -> new HashSet<>());
			if (matcher.group(3) != null) {
				Matcher labelMatcher = label.matcher(matcher.group(3));
				while (labelMatcher.find()) {
					labels.add(labelMatcher.group(1));
				}
			}
		}
	}

	/** How many learners of a member the group view of an application shows with an ETA. */
	private int learnersWithAnEta(ConfigurableApplicationContext context, String instanceId) throws Exception {
		int learners = 0;
		for (JsonNode learner : group(context).path("learners")) {
			if (learner.path("instanceId").asString().equals(instanceId) && learner.path("etaSeconds").isNumber()
					&& learner.path("lag").asLong() > 0 && !learner.path("ready").asBoolean()) {
				learners++;
			}
		}
		return learners;
	}

	private JsonNode drainOf(ConfigurableApplicationContext context, String instanceId) throws Exception {
		for (JsonNode drain : group(context).path("drains")) {
			if (drain.path("instanceId").asString().equals(instanceId)) {
				return drain;
			}
		}
		return MissingNode.getInstance();
	}

	private JsonNode group(ConfigurableApplicationContext context) throws Exception {
		return new ObjectMapper().readTree(this.client.get(context, "/actuator/rebalance/group").body())
			.path("applications")
			.path(0);
	}

	@Test
	void readsLeavesAndCancelsWithTheirStatusCodes() throws Exception {
		broker.createTopics(4, "endpoint-app-input", "endpoint-app-output");
		try (ConfigurableApplicationContext a = start("a", "unrestricted");
				ConfigurableApplicationContext b = start("b", "read-only")) {
			await("both members in the group plan").atMost(Duration.ofMinutes(1))
				.until(() -> this.client.get(a, "/actuator/rebalance/group").body().contains("\"instanceId\":\"b\""));

			PrometheusMeterRegistry prometheusOfA = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
			PrometheusMeterRegistry prometheusOfB = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
			a.getBean(RebalanceMetrics.class).bindTo(prometheusOfA);
			b.getBean(RebalanceMetrics.class).bindTo(prometheusOfB);
			Map<String, Set<String>> exported = new HashMap<>();

			readsTheMembersTheirTasksAndThePlans(a);
			refusesWhatItCannotDoSayingWhy(a, b);
			try (TrackingProducer producer = new TrackingProducer(broker.bootstrapServers(), "endpoint-app-input")) {
				producer.load(4, 20_000, 1);
				ExactCountVerifier.assertExactCounts(broker.bootstrapServers(), "endpoint-app-output",
						producer.acknowledgedCounts(), Duration.ofMinutes(2));
			}
			showsALeaveWhileItsLearnersWarmUpAndCancelsIt(a, b, prometheusOfA, prometheusOfB, exported);
			THROTTLE.release();
			endsALeaveThatWaitsDrainedAndCountsItOnce(a, b, prometheusOfA, prometheusOfB, exported);
		}
	}

	/**
	 * The members, their tasks with their stores, and each start's plan.
	 */
	private void readsTheMembersTheirTasksAndThePlans(ConfigurableApplicationContext a) throws Exception {
		HttpResponse<String> members = this.client.get(a, "/actuator/rebalance");
		assertThat(members.statusCode()).isEqualTo(200);
		assertThat(members.body()).contains("\"instanceId\":\"a\"").contains("\"state\":\"STABLE\"");
		await().atMost(Duration.ofSeconds(30)).until(() -> this.client.get(a, "/actuator/rebalance/tasks").body()
			.contains("\"state\":\"ACTIVE\",\"stateful\":true,\"stores\":[\"counts\"]"));
		assertThat(group(a).path("members")).as("the plan of each member start, tasks by id")
			.anySatisfy((plan) -> {
				assertThat(plan.path("instanceId").asString()).isEqualTo("a");
				assertThat(plan.path("generation").isInt()).isTrue();
				assertThat(plan.path("active")).isNotEmpty()
					.allSatisfy((task) -> assertThat(task.asString()).matches("\\d+_\\d+"));
				assertThat(plan.path("learning").isObject()).isTrue();
				assertThat(plan.path("leaving").asBoolean()).isFalse();
				assertThat(plan.path("mode").asString()).isEqualTo("INCREMENTAL");
			});
	}

	/**
	 * A leave on a read-only endpoint, a bad duration, a wait too long, a cancel or leave of whom it cannot act on: each
	 * refused with the status and a message naming what was wrong.
	 */
	private void refusesWhatItCannotDoSayingWhy(ConfigurableApplicationContext a, ConfigurableApplicationContext b)
			throws Exception {
		assertThat(this.client.post(b, "{}").statusCode()).as("leave on a read-only endpoint").isEqualTo(405);
		HttpResponse<String> bad = this.client.post(a, "{\"timeout\":\"soon\"}");
		assertThat(bad.statusCode()).isEqualTo(400);
		assertThat(bad.body()).contains("timeout 'soon' is not a duration");
		HttpResponse<String> tooLong = this.client.post(a, "{\"wait\":\"1h\"}");
		assertThat(tooLong.statusCode()).as("a wait that would hold a server thread an hour").isEqualTo(400);
		assertThat(tooLong.body()).contains("wait '1h' is longer than PT5M");
		assertThat(this.client.delete(a).statusCode()).as("cancel with nothing leaving").isEqualTo(409);
		HttpResponse<String> unknown = this.client.post(a, "{\"instanceId\":\"gone-9\"}");
		assertThat(unknown.statusCode()).as("a leave of a member not in the group").isEqualTo(409);
		assertThat(unknown.body()).contains("\"reason\":\"unknown-instance\"")
			.contains("unknown instance id 'gone-9'");
		HttpResponse<String> malformed = this.client.post(a, "{\"instanceId\":\"b; rm\"}");
		assertThat(malformed.statusCode()).isEqualTo(400);
		assertThat(malformed.body()).contains("instance id 'b; rm' is invalid");
		assertThat(this.client.delete(a, "b").statusCode()).as("cancel of a member that is not leaving")
			.isEqualTo(409);

	}

	/**
	 * While the learners warm up, each surface shows the leave: the tasks' roles, the learners' and the drain's ETA,
	 * the meters, health UP and readiness refusing traffic; a cancel makes the member stable and ready again.
	 */
	private void showsALeaveWhileItsLearnersWarmUpAndCancelsIt(ConfigurableApplicationContext a,
			ConfigurableApplicationContext b, PrometheusMeterRegistry prometheusOfA,
			PrometheusMeterRegistry prometheusOfB, Map<String, Set<String>> exported) throws Exception {
		assertThat(this.client.post(a, "{\"timeout\":\"5m\"}").statusCode()).isEqualTo(202);
		await("a's tasks being learned on b").atMost(Duration.ofMinutes(1))
			.until(() -> this.client.get(a, "/actuator/rebalance/tasks")
				.body()
				.contains("\"state\":\"BEING_LEARNED\"")
					&& this.client.get(b, "/actuator/rebalance/tasks").body().contains("\"state\":\"LEARNING\""));
		assertThat(this.client.get(b, "/actuator/rebalance/tasks").body()).contains("\"ready\":false");
		await("b's learners' progress and a's drain ETA in the group view of either").atMost(Duration.ofSeconds(30))
			.until(() -> learnersWithAnEta(a, "b") > 0 && drainOf(b, "a").path("slowestTask").isTextual());
		JsonNode drain = drainOf(b, "a");
		assertThat(drain.path("tasks").size()).as("a's tasks handed over to b's learners").isPositive();
		assertThat(drain.path("eta").asString()).as("a's drain ends when b's slowest learner is ready, before its "
				+ "deadline").isEqualTo(drain.path("readyAt").asString());
		await("b's learner lags sampled").atMost(Duration.ofSeconds(10))
			.until(() -> prometheusOfB.scrape().contains("incremental_rebalance_learner_lag{"));
		exportedSeries(prometheusOfA.scrape(), exported);
		exportedSeries(prometheusOfB.scrape(), exported);
		MeterRegistry metersOfB = b.getBean(MeterRegistry.class);
		assertThat(metersOfB.find("incremental.rebalance.learner.lag").gauges()).as("a lag per learner of b")
			.isNotEmpty()
			.allSatisfy((gauge) -> assertThat(gauge.getId().getTag("task")).isNotNull());
		assertThat(a.getBean(MeterRegistry.class).get("incremental.rebalance.drain.eta").gauge().value())
			.as("seconds until a's drain ends").isPositive();
		HttpResponse<String> draining = this.client.get(a, "/actuator/health/rebalance");
		assertThat(draining.statusCode()).as("a member that drains does its job: UP").isEqualTo(200);
		assertThat(draining.body()).contains("\"state\":\"LEAVING\"").contains("\"deadline\"");
		assertThat(a.getBean(ApplicationAvailability.class).getReadinessState())
			.isEqualTo(ReadinessState.REFUSING_TRAFFIC);
		HttpResponse<String> cancel = this.client.delete(a);
		assertThat(cancel.statusCode()).isEqualTo(200);
		assertThat(cancel.body()).contains("\"state\":\"STABLE\"");
		assertThat(a.getBean(ApplicationAvailability.class).getReadinessState())
			.isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
	}

	/**
	 * A leave that waits answers once the member drained and closed; the stayer counts it once, the dashboard's series
	 * are all exported, health says out of service while liveness stays, and a repeat is answered as done.
	 */
	private void endsALeaveThatWaitsDrainedAndCountsItOnce(ConfigurableApplicationContext a,
			ConfigurableApplicationContext b, PrometheusMeterRegistry prometheusOfA,
			PrometheusMeterRegistry prometheusOfB, Map<String, Set<String>> exported) throws Exception {
		HttpResponse<String> leave = this.client.post(a, "{\"timeout\":\"1m\",\"wait\":\"30s\"}");
		assertThat(leave.statusCode()).isEqualTo(202);
		assertThat(leave.body()).contains("\"state\":\"CLOSED\"")
			.contains("\"outcome\":{\"outcome\":\"drained\",\"reason\":\"learners-ready\",\"tasksMovedCold\":0");
		assertThat(a.getBean(MemberRuntimes.class).all().get(0).state()).isEqualTo(MemberState.CLOSED);
		exportedSeries(prometheusOfA.scrape(), exported);
		assertThat(prometheusOfB.scrape()).as("every end counted from 0, the first one an increase")
			.contains("incremental_rebalance_leaves_total{application_id=\"endpoint-app\",instance_id=\"b\","
					+ "outcome=\"forced\",reason=\"deadline-passed\"} 0.0");
		await("b, which stayed, counts how a left").atMost(Duration.ofSeconds(30))
			.until(() -> prometheusOfB.scrape().contains("reason=\"learners-ready\"} 1.0"));
		assertThat(prometheusOfB.scrape()).as("b's scrape")
			.contains("incremental_rebalance_leaves_total{application_id=\"endpoint-app\",instance_id=\"b\","
					+ "outcome=\"drained\",reason=\"learners-ready\"} 1.0")
			.contains("incremental_rebalance_leaves_tasks_moved_cold_total{application_id=\"endpoint-app\","
					+ "instance_id=\"b\"} 0.0")
			.as("no tag names the leaver: a pod's name would add series at every rollout")
			.doesNotContain("member=\"a\"");
		assertThat(prometheusOfA.scrape()).as("the leaver counts no leave of its own")
			.containsPattern("incremental_rebalance_leaves_total\\{[^}]*} 0.0")
			.doesNotContainPattern("incremental_rebalance_leaves_total\\{[^}]*} [1-9]");
		exportedSeries(prometheusOfB.scrape(), exported);
		for (GrafanaDashboard.Query query : GrafanaDashboard.read().queries()) {
			assertThat(query.series()).as("series of '%s' in %s", query.panel(), GrafanaDashboard.FILE).isNotEmpty()
				.allSatisfy((series) -> assertThat(exported).as("series exported").containsKey(series));
			Set<String> labels = new HashSet<>(Set.of("instance", "job"));
			query.series().forEach((series) -> labels.addAll(exported.get(series)));
			assertThat(labels).as("labels of '%s': Prometheus' own and the series'", query.panel())
				.containsAll(query.labels());
		}
		assertThat(a.getBean(MeterRegistry.class)
			.get("incremental.rebalance.drain")
			.tags("application.id", "endpoint-app", "outcome", "drained", "reason", "learners-ready")
			.timer()
			.count()).as("one drain; the cancelled leave is not one").isEqualTo(1);
		assertThat(a.getBean(ApplicationAvailability.class).getReadinessState())
			.isEqualTo(ReadinessState.REFUSING_TRAFFIC);
		HttpResponse<String> health = this.client.get(a, "/actuator/health");
		assertThat(health.statusCode()).as("out of service: readiness refuses traffic").isEqualTo(503);
		assertThat(health.body()).contains("\"readinessState\":{\"status\":\"OUT_OF_SERVICE\"}")
			.contains("\"rebalance\":{\"details\":{\"endpoint-app\":{\"instanceId\":\"a\",\"state\":\"CLOSED\"")
			.contains("\"outcome\":\"drained\",\"outcomeReason\":\"learners-ready\",\"tasksMovedCold\":0");
		assertThat(this.client.get(a, "/actuator/health/liveness").statusCode()).as("a drained instance stays live")
			.isEqualTo(200);
		assertThat(this.client.post(a, "{}").statusCode()).as("a repeat").isEqualTo(200);
	}


	@Test
	void leaveDrainsAndThenClosesTheApplication() throws Exception {
		broker.createTopics(4, "closing-app-input", "closing-app-output");
		try (ConfigurableApplicationContext a = startClosing("a"); ConfigurableApplicationContext b = startClosing("b");
				TrackingProducer producer = new TrackingProducer(broker.bootstrapServers(), "closing-app-input")) {
			await("both run a share of the tasks").atMost(Duration.ofMinutes(1))
				.until(() -> running(a) && running(b) && !activeTasks(b).isEmpty()
						&& activeTasks(a).size() + activeTasks(b).size() == 4);
			producer.load(4, 5_000, 1);
			List<MemberState> states = new CopyOnWriteArrayList<>();
			b.getBean(MemberRuntimes.class).all().get(0).addStateListener(states::add);

			assertThat(this.client.post(b, "{}").statusCode()).isEqualTo(202);

			await("b's context closes after its drain").atMost(Duration.ofMinutes(1)).until(() -> !b.isActive());
			assertThat(states).containsExactly(MemberState.LEAVING, MemberState.DRAINED, MemberState.CLOSED);
			await("a runs every task").atMost(Duration.ofSeconds(30))
				.until(() -> running(a) && activeTasks(a).size() == 4);
			producer.load(4, 1_000, 1);
			ExactCountVerifier.assertExactCounts(broker.bootstrapServers(), "closing-app-output",
					producer.acknowledgedCounts(), Duration.ofMinutes(2));

			MemberRuntime ofA = a.getBean(MemberRuntimes.class).all().get(0);
			await("the last plan has a alone").atMost(Duration.ofSeconds(30))
				.until(() -> ofA.controlView().planEpoch().isPresent() && ofA.controlView().plans().stream()
					.allMatch((plan) -> plan.instanceId().equals("a")));
			HttpResponse<String> alone = this.client.post(a, "{}");
			assertThat(alone.statusCode()).as("the last stable member").isEqualTo(409);
			assertThat(alone.body()).contains("\"reason\":\"last-stable-member\"")
				.contains("ask again with force");
			List<MemberState> statesOfA = new CopyOnWriteArrayList<>();
			ofA.addStateListener(statesOfA::add);
			assertThat(this.client.post(a, "{\"force\":true}").statusCode()).isEqualTo(202);
			await("a's context closes after it left").atMost(Duration.ofMinutes(1)).until(() -> !a.isActive());
			assertThat(statesOfA).containsExactly(MemberState.LEAVING, MemberState.LEFT_WITHOUT_LEARNERS,
					MemberState.CLOSED);
		}
	}

	@Test
	void restartAfterADrainIsANewStartOfTheMemberAndAStaticBounceThenKeepsItsTasks() throws Exception {
		broker.createTopics(4, "restart-app-input", "restart-app-output");
		try (ConfigurableApplicationContext a = startStatic("a"); ConfigurableApplicationContext b = startStatic("b");
				TrackingProducer producer = new TrackingProducer(broker.bootstrapServers(), "restart-app-input")) {
			await("both run a share of the tasks").atMost(Duration.ofMinutes(1))
				.until(() -> running(a) && running(b) && !activeTasks(b).isEmpty()
						&& activeTasks(a).size() + activeTasks(b).size() == 4);
			producer.load(4, 2_000, 1);
			MemberRuntime ofB = b.getBean(MemberRuntimes.class).all().get(0);
			String drainedStart = ofB.identity().incarnation();
			HttpResponse<String> leave = this.client.post(b, "{\"wait\":\"60s\"}");
			assertThat(leave.statusCode()).isEqualTo(202);
			assertThat(leave.body()).contains("\"state\":\"CLOSED\"").contains("\"outcome\":\"drained\"");

			StreamsBuilderFactoryBean factoryBean = b.getBean("&defaultKafkaStreamsBuilder",
					StreamsBuilderFactoryBean.class);
			assertThat(factoryBean.isRunning()).as("the drain stopped Kafka Streams through the factory bean").isFalse();
			assertThat(factoryBean.getKafkaStreams()).isNull();
			assertThat(removedStreams(b)).as("its listeners heard of it").hasSize(1);
			factoryBean.start();
			await("b back with a share").atMost(Duration.ofMinutes(1))
				.until(() -> running(b) && !activeTasks(b).isEmpty() && activeTasks(a).size() + activeTasks(b).size() == 4);
			assertThat(ofB.identity().incarnation()).as("a new start of b").isNotEqualTo(drainedStart);
			assertThat(ofB.state()).isEqualTo(MemberState.STABLE);
			assertThat(ofB.drainOutcome()).as("nothing of the earlier drain applies").isEmpty();

			MemberRuntime ofA = a.getBean(MemberRuntimes.class).all().get(0);
			// settled: no learner left, and Kafka Streams' follow-up of the last move done (no new plan for 2 s)
			AtomicInteger lastGeneration = new AtomicInteger(-1);
			await("the group settled").during(Duration.ofSeconds(2)).atMost(Duration.ofMinutes(1)).until(() -> {
				int generation = ofA.controlView().planEpoch().map(PlanEpoch::generation).orElse(-1);
				return generation == lastGeneration.getAndSet(generation)
						&& ofA.controlView().plans().stream().allMatch((plan) -> plan.plan().learning().isEmpty());
			});
			Set<TaskId> held = activeTasks(b);
			int generationBefore = ofA.controlView().planEpoch().orElseThrow().generation();
			factoryBean.stop();
			factoryBean.start();
			await("b runs its tasks again after the bounce").atMost(Duration.ofSeconds(30))
				.until(() -> running(b) && activeTasks(b).equals(held));
			assertThat(ofA.controlView().planEpoch().orElseThrow().generation())
				.as("a static member's bounce is no rebalance: no new plan").isEqualTo(generationBefore);
			producer.load(4, 500, 1);
			ExactCountVerifier.assertExactCounts(broker.bootstrapServers(), "restart-app-output",
					producer.acknowledgedCounts(), Duration.ofMinutes(2));
		}
	}

	private ConfigurableApplicationContext startStatic(String name) {
		return CountingBootApplication.start(broker, "restart-app", name, this.stateRoot, null, true,
				"spring.kafka.streams.properties.group.instance.id=restart-" + name,
				// a bounce has to come back before the broker expires the static member
				"spring.kafka.streams.properties.consumer.session.timeout.ms=20000",
				"incremental-rebalance.drain.on-drained=stop-streams",
				"management.endpoints.web.exposure.include=rebalance",
				"management.endpoint.rebalance.access=unrestricted");
	}

	private ConfigurableApplicationContext startClosing(String name) {
		return CountingBootApplication.start(broker, "closing-app", name, this.stateRoot, null, true,
				"management.endpoints.web.exposure.include=rebalance",
				"management.endpoint.rebalance.access=unrestricted");
	}

	private ConfigurableApplicationContext start(String name, String access) {
		return CountingBootApplication.start(broker, "endpoint-app", name, this.stateRoot, THROTTLE, true,
				// start-up moves leave task directories behind; cleaned, the learners start cold
				"spring.kafka.streams.properties.state.cleanup.delay.ms=1000",
				"spring.kafka.streams.properties.acceptable.recovery.lag=1000",
				"incremental-rebalance.drain.on-drained=stop-streams",
				"management.endpoints.web.exposure.include=rebalance,health",
				"management.endpoint.health.show-details=always", "management.endpoint.rebalance.access=" + access);
	}

}
