package io.github.incrementalrebalance.autoconfigure;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.testkit.ExactCountVerifier;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.RestoreThrottle;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * The alert rules of {@code deploy/prometheus}, evaluated by Prometheus' own {@code promtool} on what two instances
 * exported: a quiet group, then one instance's drain stalled (its learners' restores held) until its deadline forced
 * it to leave, after which it stays up out of its group ({@code stop-streams}). The series given to promtool are the scrapes' own names, labels and values, before and after, with the
 * target labels Prometheus adds. The right alerts fire, with the labels and annotations an on-call engineer reads, and
 * none before. {@code PROMTOOL_REQUIRED=true} (set by {@code .ci/run}, which installs Debian's {@code prometheus})
 * makes a missing promtool a failure; elsewhere the test is skipped.
 */
@Tag(TestTags.BROKER)
class AlertRulesIntegrationTests {

	private static final Path RULES = Path.of("..", "deploy", "prometheus", "incremental-rebalance-alerts.yaml");

	private static final Path PROMTOOL = Path.of(System.getProperty("promtool", "/usr/bin/promtool"));

	private static final String APPLICATION = "alerts-app";

	/** The meters the rules read. */
	private static final Pattern ALERTED = Pattern.compile(
			"^(incremental_rebalance_(?:problem|drain_stalled|leaves_total|leaves_tasks_moved_cold_total|member_state))"
					+ "\\{([^}]*)} (\\S+)$");

	private static final Pattern LABEL_TEMPLATE = Pattern.compile("\\{\\{ \\$labels\\.(\\w+) }}");

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	private final RestoreThrottle throttle = RestoreThrottle.of(2_000);

	@TempDir
	Path stateRoot;

	@Test
	void aStalledDrainAndTheForcedLeaveItEndsInFireTheirAlerts() throws Exception {
		boolean installed = Files.isExecutable(PROMTOOL);
		if (Boolean.parseBoolean(System.getenv("PROMTOOL_REQUIRED"))) {
			assertThat(installed).as("promtool at %s (apt-get install prometheus)", PROMTOOL).isTrue();
		}
		assumeThat(installed).as("promtool installed").isTrue();
		assertThat(promtool("check", "rules", RULES.toAbsolutePath().toString())).contains("SUCCESS: 5 rules found");

		broker.createTopics(2, APPLICATION + "-input", APPLICATION + "-output");
		try (ConfigurableApplicationContext a = start("a"); ConfigurableApplicationContext b = start("b");
				TrackingProducer producer = new TrackingProducer(broker.bootstrapServers(), APPLICATION + "-input")) {
			MemberRuntime ofA = a.getBean(MemberRuntimes.class).all().get(0);
			await("both members in the group plan").atMost(Duration.ofMinutes(1))
				.until(() -> ofA.controlView().plans().size() == 2 && !ofA.tasks().isEmpty());
			producer.load(2, 5_000, 1);
			ExactCountVerifier.assertExactCounts(broker.bootstrapServers(), APPLICATION + "-output",
					producer.acknowledgedCounts(), Duration.ofMinutes(2));
			PrometheusMeterRegistry metersOfA = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
			PrometheusMeterRegistry metersOfB = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
			a.getBean(RebalanceMetrics.class).bindTo(metersOfA);
			b.getBean(RebalanceMetrics.class).bindTo(metersOfB);
			Map<String, Double> quiet = series(metersOfA.scrape(), "a");
			quiet.putAll(series(metersOfB.scrape(), "b"));

			this.throttle.hold();
			assertThat(ofA.leave(Optional.of(Duration.ofSeconds(10)), "alert rules")).isTrue();
			await("a's drain stalled").atMost(Duration.ofSeconds(30)).until(() -> ofA.drainStalled().isPresent());
			Map<String, Double> after = series(metersOfA.scrape(), "a");
			await("a forced out at its deadline").atMost(Duration.ofMinutes(1))
				.until(() -> ofA.state() == MemberState.CLOSED);
			// a's state as it stays up out of its group, beside the stalled drain's series scraped before
			series(metersOfA.scrape(), "a").forEach((series, value) -> {
				if (series.startsWith("incremental_rebalance_member_state{")) {
					after.put(series, value);
				}
			});
			this.throttle.release();
			await("b, which stayed, counted how a left").atMost(Duration.ofSeconds(30))
				.until(() -> metersOfB.scrape().contains("outcome=\"forced\",reason=\"deadline-passed\"} 1.0"));
			after.putAll(series(metersOfB.scrape(), "b"));

			Path test = this.stateRoot.resolve("alerts-test.yaml");
			Files.writeString(test, promtoolTest(quiet, after));
			assertThat(promtool("test", "rules", test.toString())).contains("SUCCESS");
		}
	}

	/**
	 * The unit test promtool runs: each series quiet for five minutes, then as scraped after, for ten; at 4 minutes no
	 * alert fires, at 14 the stalled drain's, the forced leave's and the cold moves', and no problem's.
	 */
	private static String promtoolTest(Map<String, Double> quiet, Map<String, Double> after) throws IOException {
		StringBuilder text = new StringBuilder("rule_files:\n  - " + RULES.toAbsolutePath() + "\n")
			.append("evaluation_interval: 1m\ntests:\n  - interval: 1m\n    input_series:\n");
		assertThat(after).as("the series of the quiet scrapes, and only those").containsOnlyKeys(quiet.keySet());
		after.forEach((series, value) -> text.append("      - series: '").append(series).append("'\n        values: '")
			.append(format(quiet.get(series))).append("x4 ").append(format(value)).append("x10'\n"));
		Map<String, Map<String, String>> firing = new TreeMap<>();
		firing.put("IncrementalRebalanceDrainStalled", Map.of("application_id", APPLICATION, "instance_id", "a"));
		firing.put("IncrementalRebalanceLeaveNotDrained",
				Map.of("application_id", APPLICATION, "outcome", "forced", "reason", "deadline-passed"));
		firing.put("IncrementalRebalanceTasksMovedCold", Map.of("application_id", APPLICATION));
		firing.put("IncrementalRebalanceLeftMemberStillUp", Map.of("application_id", APPLICATION, "instance_id", "a"));
		text.append("    alert_rule_test:\n");
		Map<String, Map<String, Object>> rules = rules();
		assertThat(rules).as("every alert the rules define is tested")
			.containsOnlyKeys("IncrementalRebalanceProblem", "IncrementalRebalanceDrainStalled",
					"IncrementalRebalanceLeaveNotDrained", "IncrementalRebalanceTasksMovedCold",
					"IncrementalRebalanceLeftMemberStillUp");
		for (Map.Entry<String, Map<String, Object>> rule : rules.entrySet()) {
			text.append("      - eval_time: 4m\n        alertname: ").append(rule.getKey())
				.append("\n        exp_alerts: []\n");
			text.append("      - eval_time: 14m\n        alertname: ").append(rule.getKey()).append('\n');
			Map<String, String> labels = firing.get(rule.getKey());
			if (labels == null) {
				text.append("        exp_alerts: []\n");
				continue;
			}
			Map<String, String> expected = new TreeMap<>(labels);
			expected.putAll(strings(rule.getValue().get("labels")));
			text.append("        exp_alerts:\n          - exp_labels:\n");
			expected.forEach((name, value) -> text.append("              ").append(name).append(": \"")
				.append(value).append("\"\n"));
			text.append("            exp_annotations:\n");
			strings(rule.getValue().get("annotations")).forEach((name, template) -> text.append("              ")
				.append(name).append(": \"").append(render(template, labels).replace("\"", "\\\"")).append("\"\n"));
		}
		return text.toString();
	}

	/** The series of the alerted meters in a scrape, with the target labels Prometheus adds, and their values. */
	private static Map<String, Double> series(String scrape, String instance) {
		Map<String, Double> series = new LinkedHashMap<>();
		for (String line : scrape.split("\n")) {
			Matcher matcher = ALERTED.matcher(line);
			if (matcher.matches()) {
				String labels = matcher.group(2) + ",instance=\"" + instance + "\",job=\"sample-app\"";
				series.put(matcher.group(1) + "{" + labels + "}", Double.parseDouble(matcher.group(3)));
			}
		}
		assertThat(series).as("alerted series of %s", instance).isNotEmpty();
		return series;
	}

	/** The rules by alert name, as the file defines them. */
	private static Map<String, Map<String, Object>> rules() throws IOException {
		Map<String, Map<String, Object>> rules = new TreeMap<>();
		try (Reader reader = Files.newBufferedReader(RULES)) {
			Map<String, Object> file = new Yaml().load(reader);
			for (Object group : (List<?>) file.get("groups")) {
				for (Object rule : (List<?>) ((Map<?, ?>) group).get("rules")) {
					Map<String, Object> fields = new LinkedHashMap<>();
					((Map<?, ?>) rule).forEach((key, value) -> fields.put(String.valueOf(key), value));
					rules.put(String.valueOf(fields.get("alert")), fields);
				}
			}
		}
		return rules;
	}

	private static Map<String, String> strings(Object map) {
		Map<String, String> strings = new TreeMap<>();
		((Map<?, ?>) map).forEach((key, value) -> strings.put(String.valueOf(key), String.valueOf(value)));
		return strings;
	}

	/** An annotation as Prometheus renders it: the rules use only their alert's labels. */
	private static String render(String template, Map<String, String> labels) {
		Matcher matcher = LABEL_TEMPLATE.matcher(template);
		StringBuilder rendered = new StringBuilder();
		while (matcher.find()) {
			assertThat(labels).as("label %s of %s", matcher.group(1), template).containsKey(matcher.group(1));
			matcher.appendReplacement(rendered, Matcher.quoteReplacement(labels.get(matcher.group(1))));
		}
		matcher.appendTail(rendered);
		assertThat(rendered.toString()).as("a template beyond the alert's labels").doesNotContain("{{");
		return rendered.toString();
	}

	private static String format(double value) {
		return (value == Math.rint(value)) ? Long.toString((long) value) : Double.toString(value);
	}

	private static String promtool(String... args) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>(List.of(PROMTOOL.toString()));
		command.addAll(List.of(args));
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(process.waitFor(1, TimeUnit.MINUTES)).as("promtool %s answered", List.of(args)).isTrue();
		assertThat(process.exitValue()).as(output).isZero();
		return output;
	}

	private ConfigurableApplicationContext start(String name) {
		return CountingBootApplication.start(broker, APPLICATION, name, this.stateRoot, this.throttle, false,
				// start-up leaves task directories behind; cleaned, the learners start cold
				"spring.kafka.streams.properties.state.cleanup.delay.ms=1000",
				"spring.kafka.streams.properties.acceptable.recovery.lag=100",
				"incremental-rebalance.learners.progress-interval=500ms", "incremental-rebalance.drain.stall-timeout=2s",
				"incremental-rebalance.drain.on-drained=stop-streams");
	}

}
