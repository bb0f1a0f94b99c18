package io.github.incrementalrebalance.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.member.DrainOutcome;
import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.RestoredRecords;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Kubernetes scale-down with the command line's {@code --dry-run}: it drains the pods the workload removes (a
 * StatefulSet's highest ordinal, then a Deployment's pod named), waits until each has left, and prints the
 * {@code kubectl} step that removes them; a scale-down that names no member, or an unknown one, asks nothing. Through
 * the Kubernetes API: {@link ScaleDownThroughKubernetesIntegrationTests}.
 */
@Tag(TestTags.BROKER)
class ScaleDownIntegrationTests {

	private static final int PARTITIONS = 4;

	private static final long ACCEPTABLE_LAG = 1_000;

	private static final String APPLICATION_ID = "scale-down-cli";

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@Test
	void drainsThePodsTheScaleDownRemovesThenPrintsTheStep() {
		CountingApplication application = new CountingApplication(broker, APPLICATION_ID, PARTITIONS);
		try (TrackingProducer producer = application.producer();
				StreamsLauncher launcher = application.launcher(this.stateRoot)
					.property(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2)
					.property(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, ACCEPTABLE_LAG)
					.property(LearnerConfig.LEARNER_PROBE_INTERVAL_MS_CONFIG, Duration.ofMinutes(5).toMillis())) {
			StreamsInstance shop0 = launcher.instance("shop-0").memberRuntime().start();
			StreamsInstance shop1 = launcher.instance("shop-1").memberRuntime().start();
			StreamsInstance shop2 = launcher.instance("shop-2").memberRuntime().start();
			await("every instance runs a share").atMost(Duration.ofMinutes(2))
				.until(() -> StreamsInstance.allRunning(shop0, shop1, shop2)
						&& StreamsInstance.planSettled(shop0, shop1, shop2)
						&& List.of(shop0, shop1, shop2).stream().noneMatch((shop) -> shop.activeTasks().isEmpty()));
			producer.load(PARTITIONS, 1_000, 1);
			producer.startMarkers(PARTITIONS, TrackingProducer.MARKER_INTERVAL);

			String none = cli(1, "scale-down", "--statefulset", "shop", "--replicas", "3", "--wait", "1m", "--dry-run");
			assertThat(none).contains("no member of " + APPLICATION_ID + " is pod shop-3 or above (members: shop-0, "
					+ "shop-1, shop-2): nothing to drain");
			String unknown = cli(1, "scale-down", "--deployment", "shop", "--replicas", "1", "--instance-id",
					"shop-2,shop-9", "--wait", "1m", "--dry-run");
			assertThat(unknown).contains("unknown instance id 'shop-9'").contains("nothing asked");
			assertThat(shop2.runtime().state()).as("nothing asked of shop-2 either").isEqualTo(MemberState.STABLE);

			Set<TaskId> ofShop2 = shop2.activeTasks();
			String statefulSet = cli(0, "scale-down", "--statefulset", "shop", "--replicas", "2", "--timeout", "2m",
					"--wait", "2m", "--dry-run");
			assertThat(statefulSet).contains("shop-2: leaving")
				.contains("shop-2: drained (learners-ready)")
				.contains("next: kubectl scale statefulset shop --replicas=2")
				.doesNotContain("shop-0: leaving", "shop-1: leaving");
			assertThat(shop2.runtime().state()).isEqualTo(MemberState.CLOSED);
			assertThat(shop2.runtime().drainOutcome()).contains(DrainOutcome.of(DrainOutcome.Reason.LEARNERS_READY, 0));
			assertWarm(ofShop2, shop0, shop1);

			await("shop-0 and shop-1 run every task").atMost(Duration.ofMinutes(1))
				.until(() -> StreamsInstance.allRunning(shop0, shop1)
						&& StreamsInstance.activeTasksOf(shop0, shop1).size() == PARTITIONS);
			Set<TaskId> ofShop1 = shop1.activeTasks();
			JsonNode deployment = JsonMapper.shared().readTree(cli(0, "scale-down", "--deployment", "shop",
					"--replicas", "1", "--instance-id", "shop-1", "--timeout", "2m", "--wait", "2m", "-o", "json",
					"--dry-run"));
			assertThat(deployment.path("leaves").path(0).path("instanceId").asString()).isEqualTo("shop-1");
			assertThat(deployment.path("leaves").path(0).path("ended").asString()).isEqualTo("drained (learners-ready)");
			assertThat(deployment.path("next").size()).isEqualTo(2);
			assertThat(deployment.path("next").path(0).asString())
				.isEqualTo("kubectl annotate pod shop-1 controller.kubernetes.io/pod-deletion-cost=-1000 --overwrite");
			assertThat(deployment.path("next").path(1).asString()).isEqualTo("kubectl scale deployment shop --replicas=1");
			assertThat(shop1.runtime().drainOutcome()).contains(DrainOutcome.of(DrainOutcome.Reason.LEARNERS_READY, 0));
			assertWarm(ofShop1, shop0);

			application.verifyCounts(producer);
		}
	}

	private static void assertWarm(Set<TaskId> moved, StreamsInstance... to) {
		assertThat(moved).isNotEmpty();
		RestoredRecords.assertRestoredAtPromotionAtMost(ACCEPTABLE_LAG, moved,
				StreamsInstance.restoredRecordsOf(to));
	}

	private static String cli(int expectedStatus, String... command) {
		return CliRun.against(broker, APPLICATION_ID, expectedStatus, command);
	}

}
