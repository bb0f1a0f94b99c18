package io.github.incrementalrebalance.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.github.incrementalrebalance.member.DrainOutcome;
import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code scale-down} acting through the Kubernetes API, against fabric8's mock API server in CRUD mode (it stores
 * what it is sent and answers with it: no controller runs, so no pod goes away; what is asserted is what the command
 * wrote) and the group's real members on the test broker, named as the Deployment's pods are. It refuses a scale-down
 * that would remove other pods than the ones named before asking any to leave, gives exactly the drained pod the
 * lowest deletion cost, writes the scale once, and writes nothing while a pod has not left.
 */
@Tag(TestTags.BROKER)
@EnableKubernetesMockClient(crud = true, https = false)
class ScaleDownThroughKubernetesIntegrationTests {

	private static final int PARTITIONS = 4;

	private static final String APPLICATION_ID = "scale-down-kubernetes";

	private static final String NAMESPACE = "shop-ns";

	/** fabric8's client configuration as system properties: the command's client finds the mock server. */
	private static final List<String> CLIENT_PROPERTIES = List.of("kubernetes.master", "kubernetes.trust.certificates",
			"kubernetes.auth.tryKubeConfig", "kubernetes.auth.tryServiceAccount", "kubernetes.namespace");

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	static KubernetesMockServer server;

	static KubernetesClient client;

	@TempDir
	Path stateRoot;

	@BeforeEach
	void pointTheCommandAtTheMockServer() {
		System.setProperty("kubernetes.master", client.getConfiguration().getMasterUrl());
		System.setProperty("kubernetes.trust.certificates", "true");
		System.setProperty("kubernetes.auth.tryKubeConfig", "false");
		System.setProperty("kubernetes.auth.tryServiceAccount", "false");
		System.setProperty("kubernetes.namespace", NAMESPACE);
	}

	@AfterEach
	void forgetTheMockServer() {
		CLIENT_PROPERTIES.forEach(System::clearProperty);
	}

	@Test
	void removesExactlyTheDrainedPodsAndWritesNothingWhileAPodHasNotLeft() throws Exception {
		client.apps().deployments().inNamespace(NAMESPACE).resource(new DeploymentBuilder().withNewMetadata()
			.withName("shop")
			.endMetadata()
			.withNewSpec()
			.withReplicas(3)
			.withNewSelector()
			.addToMatchLabels("app", "shop")
			.endSelector()
			.endSpec()
			.build()).create();
		pod("shop-a", Map.of());
		pod("shop-b", Map.of());
		// an operator marked this one to go first some day: the drained pod must still go before it
		pod("shop-c", Map.of(KubernetesWorkload.DELETION_COST, "-2000"));
		pod("other-pod", Map.of());
		CountingApplication application = new CountingApplication(broker, APPLICATION_ID, PARTITIONS);
		try (TrackingProducer producer = application.producer();
				StreamsLauncher launcher = application.launcher(this.stateRoot)) {
			StreamsInstance shopA = launcher.instance("shop-a").memberRuntime().start();
			StreamsInstance shopB = launcher.instance("shop-b").memberRuntime().start();
			StreamsInstance shopC = launcher.instance("shop-c").memberRuntime().start();
			await("every instance runs a share").atMost(Duration.ofMinutes(2))
				.until(() -> StreamsInstance.allRunning(shopA, shopB, shopC)
						&& StreamsInstance.planSettled(shopA, shopB, shopC)
						&& List.of(shopA, shopB, shopC).stream().noneMatch((shop) -> shop.activeTasks().isEmpty()));
			producer.load(PARTITIONS, 1_000, 1);
			writes();

			String tooFew = cli(1, "scale-down", "--deployment", "shop", "--replicas", "1", "--instance-id", "shop-b",
					"--wait", "1m");
			assertThat(tooFew).contains("--replicas 1 would remove 2 pod(s) from Deployment shop (it has 3 replicas), "
					+ "but 1 are named (shop-b)").contains("Use --replicas 2").contains("nothing asked");
			String foreign = cli(1, "scale-down", "--deployment", "shop", "--replicas", "2", "--instance-id",
					"other-pod", "--wait", "1m");
			assertThat(foreign).contains("not pods of Deployment shop in namespace shop-ns: other-pod (its pods: ")
				.contains("nothing asked");
			assertThat(List.of(shopA, shopB, shopC)).as("nothing asked of any")
				.allSatisfy((shop) -> assertThat(shop.runtime().state()).isEqualTo(MemberState.STABLE));
			assertThat(writes()).as("nothing written").isEmpty();

			String removed = cli(0, "scale-down", "--deployment", "shop", "--replicas", "2", "--instance-id", "shop-b",
					"--timeout", "2m", "--wait", "2m");
			assertThat(removed).contains("shop-b: drained (learners-ready)")
				.contains("done: kubectl annotate pod shop-b -n shop-ns controller.kubernetes.io/pod-deletion-cost=-2001 "
						+ "--overwrite")
				.contains("done: kubectl scale deployment shop -n shop-ns --replicas=2");
			assertThat(shopB.runtime().drainOutcome()).contains(DrainOutcome.of(DrainOutcome.Reason.LEARNERS_READY, 0));
			assertThat(writes()).as("the drained pod's cost, then the scale, once")
				.containsExactly("PATCH /api/v1/namespaces/shop-ns/pods/shop-b",
						"PATCH /apis/apps/v1/namespaces/shop-ns/deployments/shop");
			assertThat(costOf("shop-b")).isEqualTo("-2001");
			assertThat(costOf("shop-a")).as("only the drained pod's").isNull();
			assertThat(costOf("shop-c")).isEqualTo("-2000");
			assertThat(client.apps().deployments().inNamespace(NAMESPACE).withName("shop").get().getSpec().getReplicas())
				.isEqualTo(2);

			await("shop-a and shop-c run every task").atMost(Duration.ofMinutes(1))
				.until(() -> StreamsInstance.allRunning(shopA, shopC)
						&& StreamsInstance.activeTasksOf(shopA, shopC).size() == PARTITIONS);
			String waitPassed = cli(5, "scale-down", "--deployment", "shop", "--replicas", "1", "--instance-id",
					"shop-a", "--timeout", "2m", "--wait", "1ms");
			assertThat(waitPassed).contains("shop-a: still leaving").contains("none was removed")
				.doesNotContain("done:");
			assertThat(writes()).as("nothing written while shop-a had not left").isEmpty();
			assertThat(client.apps().deployments().inNamespace(NAMESPACE).withName("shop").get().getSpec().getReplicas())
				.isEqualTo(2);
		}
	}

	private static Pod pod(String name, Map<String, String> annotations) {
		Map<String, String> labels = name.startsWith("shop-") ? Map.of("app", "shop") : Map.of("app", "other");
		return client.pods().inNamespace(NAMESPACE).resource(new PodBuilder().withNewMetadata()
			.withName(name)
			.withLabels(labels)
			.withAnnotations(annotations)
			.endMetadata()
			.build()).create();
	}

	private static String costOf(String pod) {
		return client.pods().inNamespace(NAMESPACE).withName(pod).get().getMetadata().getAnnotations()
			.get(KubernetesWorkload.DELETION_COST);
	}

	/** The writes the mock server took since the last look, as method and path. */
	private static List<String> writes() throws InterruptedException {
		List<String> writes = new ArrayList<>();
		RecordedRequest request;
		while ((request = server.takeRequest(10, TimeUnit.MILLISECONDS)) != null) {
			if (!request.getMethod().equals("GET")) {
				writes.add(request.getMethod() + " " + request.getPath().replaceAll("\\?.*", ""));
			}
		}
		return writes;
	}

	private static String cli(int expectedStatus, String... command) {
		return CliRun.against(broker, APPLICATION_ID, expectedStatus, command);
	}

}
