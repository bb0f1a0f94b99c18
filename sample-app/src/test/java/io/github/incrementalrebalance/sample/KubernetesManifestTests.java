package io.github.incrementalrebalance.sample;

import java.io.IOException;
import java.io.Reader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.github.incrementalrebalance.autoconfigure.DrainOnShutdown;
import io.github.incrementalrebalance.autoconfigure.KubernetesDefaults;
import io.github.incrementalrebalance.autoconfigure.MemberRuntimes;
import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.TestTags;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.yaml.snakeyaml.Yaml;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The manifests of {@code deploy/kubernetes} held against the application they run: the sample started with a
 * workload's environment and arguments (as the kubelet would hand them, the pod name resolved) binds them, serves its
 * probes where the manifest looks, takes the pod name as its instance id (and, in the StatefulSet, as its static
 * membership), drains on shutdown within the grace period, and keeps its changelogs small enough for that drain.
 */
@Tag(TestTags.BROKER)
class KubernetesManifestTests {

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	private static final Path MANIFESTS = Path.of("..", "deploy", "kubernetes");

	private static final String POD_NAME = "sample-app-1";

	/** A new pod's scheduling, image pull and start, before its warm-up begins. */
	private static final Duration POD_START = Duration.ofMinutes(2);

	private static final Pattern VARIABLE = Pattern.compile("\\$\\((\\w+)\\)");

	private final HttpClient http = HttpClient.newHttpClient();

	@TempDir
	Path stateDir;

	@ParameterizedTest
	@ValueSource(strings = { "Deployment", "StatefulSet" })
	void workloadRunsTheApplicationAsItsManifestSays(String kind) throws Exception {
		Map<String, Object> workload = manifest(kind);
		Map<String, Object> podSpec = map(map(map(workload, "spec"), "template"), "spec");
		Map<String, Object> container = list(podSpec, "containers").get(0);
		Map<String, Object> env = environment(container);
		List<String> args = new ArrayList<>();
		for (Object arg : (List<?>) container.getOrDefault("args", List.of())) {
			args.add(resolve(String.valueOf(arg), env));
		}

		int managementPort = containerPort(container, "management");
		assertThat(Binder.get(environmentOnly(env)).bind("management.server.port", Integer.class).get())
			.as("MANAGEMENT_SERVER_PORT binds to the management container port").isEqualTo(managementPort);
		for (String probe : List.of("readinessProbe", "livenessProbe")) {
			assertThat(map(map(container, probe), "httpGet")).as(probe).containsEntry("port", "management");
		}

		args.addAll(List.of("--spring.kafka.bootstrap-servers=" + broker.bootstrapServers(), "--server.port=0",
				"--management.server.port=0", "--spring.kafka.streams.state-dir=" + this.stateDir,
				"--sample.generate=false",
				// a group of its own on the JVM's shared broker: a static member stays in its group after its close,
				// and another test class joining that group would wait out its session
				"--spring.kafka.streams.application-id=manifest-" + kind.toLowerCase(Locale.ROOT)));
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class)
			.environment(kubeletEnvironment(env))
			.run(args.toArray(String[]::new))) {
			assertThat(context.getEnvironment().getPropertySources().contains(KubernetesDefaults.PROPERTY_SOURCE_NAME))
				.as("Spring Boot detects Kubernetes from the kubelet's variables, and the starter's defaults apply")
				.isTrue();
			String management = "http://localhost:" + context.getEnvironment().getProperty("local.management.port");
			for (String probe : List.of("readinessProbe", "livenessProbe")) {
				String path = String.valueOf(map(map(container, probe), "httpGet").get("path"));
				// ready once warm (readiness.warm): a lone member, once a plan names it
				await(probe + " " + path).atMost(Duration.ofMinutes(1))
					.until(() -> get(management + path).statusCode() == 200);
			}
			String liveness = String.valueOf(map(map(container, "livenessProbe"), "httpGet").get("path"));
			assertThat(get(management + liveness).body()).as("a control topic problem never restarts a pod")
				.doesNotContain("rebalance");
			Map<String, Object> scrape = map(map(map(workload, "spec"), "template"), "metadata");
			Map<String, Object> annotations = map(scrape, "annotations");
			assertThat(annotations).containsEntry("prometheus.io/scrape", "true")
				.as("scraped on the management port").containsEntry("prometheus.io/port", String.valueOf(managementPort));
			HttpResponse<String> meters = get(management + annotations.get("prometheus.io/path"));
			assertThat(meters.statusCode()).as("the scrape needs no credentials").isEqualTo(200);
			assertThat(meters.body()).as("what the dashboard reads").contains("incremental_rebalance_tasks{");

			MemberRuntime runtime = context.getBean(MemberRuntimes.class).all().get(0);
			assertThat(runtime.identity().instanceId()).as("the pod name is the instance id").isEqualTo(POD_NAME);
			if (kind.equals("StatefulSet")) {
				assertThat(context.getBean(StreamsBuilderFactoryBean.class).getStreamsConfiguration())
					.as("the pod name is the static member id").containsEntry("group.instance.id", POD_NAME);
			}

			if (kind.equals("Deployment")) {
				Duration warmBound = context.getEnvironment()
					.getRequiredProperty("incremental-rebalance.readiness.timeout", Duration.class);
				Object deadline = map(workload, "spec").get("progressDeadlineSeconds");
				assertThat(deadline).as("progressDeadlineSeconds (Kubernetes' default: 600)").isNotNull();
				assertThat(Duration.ofSeconds(((Number) deadline).longValue()))
					.as("a rollout's deadline outlasts a new pod's start and warm-up (readiness.timeout)")
					.isGreaterThanOrEqualTo(warmBound.plus(POD_START));
			}
			Duration grace = Duration.ofSeconds(((Number) podSpec.get("terminationGracePeriodSeconds")).longValue());
			Duration drainPhase = DrainOnShutdown.bound(runtime).plus(DrainOnShutdown.CLOSE_ALLOWANCE);
			Duration otherPhases = context.getEnvironment()
				.getProperty("spring.lifecycle.timeout-per-shutdown-phase", Duration.class, Duration.ofSeconds(30));
			assertThat(grace).as("the grace period covers the drain's own phase (%s) and the web server's graceful "
					+ "shutdown (%s)", drainPhase, otherPhases)
				.isGreaterThanOrEqualTo(drainPhase.plus(otherPhases));
			ConfigResource changelog = new ConfigResource(ConfigResource.Type.TOPIC,
					"manifest-" + kind.toLowerCase(Locale.ROOT) + "-views-per-user-changelog");
			Config changelogConfig = broker.admin().describeConfigs(List.of(changelog)).all().get().get(changelog);
			assertThat(changelogConfig.get(TopicConfig.SEGMENT_MS_CONFIG).value())
				.as("the changelog rolls every 10 minutes: compaction keeps what a drain reads near the key count")
				.isEqualTo(String.valueOf(Duration.ofMinutes(10).toMillis()));
			leaveKeepsThePodUpAndNotReady(context, runtime, management, container);
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "Deployment", "StatefulSet" })
	void disruptionBudgetTakesOneMemberAtATime(String kind) throws IOException {
		Map<String, Object> budget = map(manifest("PodDisruptionBudget"), "spec");
		assertThat(budget).containsEntry("maxUnavailable", 1);
		Map<String, Object> workload = map(manifest(kind), "spec");
		assertThat(map(budget, "selector")).isEqualTo(map(workload, "selector"));
	}

	/**
	 * An autoscaler's scale-in terminates the pods of a step at once, and they drain at once: at most half of the pods
	 * a step, so that each pod that stays learns about one leaving pod's share (as {@code ScaleInBenchmark} measures,
	 * three of six), and a step no sooner than the last one's pods are gone (the grace period). The HPA and the KEDA
	 * object say the same.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "HorizontalPodAutoscaler", "ScaledObject" })
	void autoscalersRemoveAtMostHalfOfThePodsAStepAndAStepOnceTheLastOnesPodsAreGone(String kind) throws IOException {
		Map<String, Object> spec = map(manifest(kind), "spec");
		Map<String, Object> deployment = manifest("Deployment");
		assertThat(map(spec, "scaleTargetRef")).containsEntry("name", map(deployment, "metadata").get("name"));
		Map<String, Object> behavior = kind.equals("ScaledObject")
				? map(map(map(spec, "advanced"), "horizontalPodAutoscalerConfig"), "behavior") : map(spec, "behavior");
		Map<String, Object> scaleDown = map(behavior, "scaleDown");
		assertThat(scaleDown).as("the smallest step of the policies").containsEntry("selectPolicy", "Min");
		long grace = ((Number) map(map(map(deployment, "spec"), "template"), "spec")
			.get("terminationGracePeriodSeconds")).longValue();
		assertThat(list(scaleDown, "policies")).isNotEmpty().allSatisfy((policy) -> {
			assertThat(policy).as("a share of the pods").containsEntry("type", "Percent");
			assertThat(((Number) policy.get("value")).intValue()).as("at most half of the pods a step")
				.isLessThanOrEqualTo(50);
			assertThat(((Number) policy.get("periodSeconds")).longValue()).as("no step before the last one's pods left")
				.isGreaterThan(grace);
		});
	}

	/**
	 * A pod asked to leave before a scale-down or a node drain stays up, not ready: had it exited, it would be
	 * restarted in place and join the group again (a StatefulSet's as the static member its SIGTERM does not drain),
	 * and a ReplicaSet scaling down removes the pods that are not ready first.
	 */
	private void leaveKeepsThePodUpAndNotReady(ConfigurableApplicationContext context, MemberRuntime runtime,
			String management, Map<String, Object> container) throws Exception {
		// forced: the group's only member here, its tasks have nowhere to go
		assertThat(runtime.leave(Optional.empty(), "scale-down", true)).isTrue();
		await("the leave ended").atMost(Duration.ofMinutes(1)).until(() -> runtime.state() == MemberState.CLOSED);
		assertThat(context.isActive()).as("the application keeps running").isTrue();
		assertThat(context.getBean(StreamsBuilderFactoryBean.class).isRunning()).as("Kafka Streams stopped").isFalse();
		String readiness = String.valueOf(map(map(container, "readinessProbe"), "httpGet").get("path"));
		String liveness = String.valueOf(map(map(container, "livenessProbe"), "httpGet").get("path"));
		assertThat(get(management + readiness).statusCode()).as("not ready").isEqualTo(503);
		assertThat(get(management + liveness).statusCode()).as("alive: the kubelet leaves it up").isEqualTo(200);
	}

	private static Map<String, Object> manifest(String kind) throws IOException {
		List<Map<String, Object>> found = new ArrayList<>();
		try (Stream<Path> files = Files.list(MANIFESTS)) {
			for (Path file : files.filter((path) -> path.toString().endsWith(".yaml")).sorted().toList()) {
				try (Reader reader = Files.newBufferedReader(file)) {
					for (Object document : new Yaml().loadAll(reader)) {
						Map<String, Object> manifest = cast(document);
						if (kind.equals(manifest.get("kind"))) {
							found.add(manifest);
						}
					}
				}
			}
		}
		assertThat(found).as("one " + kind + " in " + MANIFESTS).hasSize(1);
		return found.get(0);
	}

	/** The container's environment as the kubelet sets it: the pod name from the downward API, a secret's value. */
	private static Map<String, Object> environment(Map<String, Object> container) {
		Map<String, Object> env = new HashMap<>();
		for (Map<String, Object> variable : list(container, "env")) {
			String name = String.valueOf(variable.get("name"));
			if (variable.containsKey("value")) {
				env.put(name, String.valueOf(variable.get("value")));
				continue;
			}
			Map<String, Object> from = map(variable, "valueFrom");
			if (from.containsKey("fieldRef")) {
				assertThat(map(from, "fieldRef")).containsEntry("fieldPath", "metadata.name");
				env.put(name, POD_NAME);
			}
			else {
				env.put(name, "secret-of-" + map(from, "secretKeyRef").get("name"));
			}
		}
		return env;
	}

	/**
	 * What a container's process sees: the manifest's variables and those the kubelet gives every container, from
	 * which Spring Boot detects Kubernetes, as its system environment.
	 */
	private static ConfigurableEnvironment kubeletEnvironment(Map<String, Object> env) {
		Map<String, Object> variables = new HashMap<>(System.getenv());
		variables.putAll(env);
		variables.put("KUBERNETES_SERVICE_HOST", "10.96.0.1");
		variables.put("KUBERNETES_SERVICE_PORT", "443");
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources()
			.replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, new SystemEnvironmentPropertySource(
					StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables));
		return environment;
	}

	private static ConfigurableEnvironment environmentOnly(Map<String, Object> env) {
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources().addFirst(new SystemEnvironmentPropertySource("manifestEnvironment", env));
		ConfigurationPropertySources.attach(environment);
		return environment;
	}

	private static String resolve(String arg, Map<String, Object> env) {
		Matcher matcher = VARIABLE.matcher(arg);
		StringBuilder resolved = new StringBuilder();
		while (matcher.find()) {
			assertThat(env).as("$(" + matcher.group(1) + ") is set").containsKey(matcher.group(1));
			matcher.appendReplacement(resolved, Matcher.quoteReplacement(String.valueOf(env.get(matcher.group(1)))));
		}
		matcher.appendTail(resolved);
		return resolved.toString();
	}

	private static int containerPort(Map<String, Object> container, String name) {
		return list(container, "ports").stream()
			.filter((port) -> name.equals(port.get("name")))
			.map((port) -> ((Number) port.get("containerPort")).intValue())
			.findFirst()
			.orElseThrow(() -> new AssertionError("no container port named " + name));
	}

	private HttpResponse<String> get(String uri) throws IOException, InterruptedException {
		return this.http.send(HttpRequest.newBuilder(URI.create(uri)).GET().build(),
				HttpResponse.BodyHandlers.ofString());
	}

	private static Map<String, Object> map(Map<String, Object> parent, String key) {
		assertThat(parent).as("has " + key).containsKey(key);
		return cast(parent.get(key));
	}

	private static List<Map<String, Object>> list(Map<String, Object> parent, String key) {
		assertThat(parent).as("has " + key).containsKey(key);
		List<Map<String, Object>> items = new ArrayList<>();
		((List<?>) parent.get(key)).forEach((item) -> items.add(cast(item)));
		return items;
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> cast(Object yaml) {
		return (Map<String, Object>) yaml;
	}

}
