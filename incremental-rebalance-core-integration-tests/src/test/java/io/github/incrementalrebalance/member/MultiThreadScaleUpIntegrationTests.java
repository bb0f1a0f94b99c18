package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.ProductionApplication;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static io.github.incrementalrebalance.testkit.ProductionApplication.STALL_BOUND;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A scale-up of the production-shaped application (four stream threads per instance) from two instances to three at
 * Kafka's default heartbeat and session: the new instance's four consumers join the group, learners warm up on it,
 * and its share moves to it warm, no task stalling for a heartbeat.
 */
@Tag(TestTags.BROKER)
@Tag(TestTags.TIMING)
class MultiThreadScaleUpIntegrationTests {

	private static final int PARTITIONS = 6;

	private static final long RESTORE_RATE = 5_000;


	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@Test
	void newFourThreadInstanceTakesItsShareWarmWithoutATaskStallingForAHeartbeat() {
		ProductionApplication run = new ProductionApplication(broker, "scale-up-threads", PARTITIONS);
		try (TrackingProducer producer = run.producer(); StreamsLauncher launcher = run.launcher(this.stateRoot)) {
			StreamsInstance a = ProductionApplication.member(launcher, "a", RESTORE_RATE);
			StreamsInstance b = ProductionApplication.member(launcher, "b", RESTORE_RATE);
			run.loadAndSettle(producer, ProductionApplication.KEYS_PER_TASK, a, b);
			Instant started = Instant.now();

			StreamsInstance c = ProductionApplication.member(launcher, "c", RESTORE_RATE);

			await("c runs its share and the plan settled").atMost(Duration.ofMinutes(2))
				.until(() -> !inputTasksOf(c).isEmpty() && StreamsInstance.planSettled(a, b, c)
						&& run.gapMeter().allProcessedSince(run.inputTasks(), Instant.now().minusMillis(300)));
			Instant settled = Instant.now();
			Set<TaskId> moved = inputTasksOf(c);
			Duration stall = run.gapMeter().longestGap(run.inputTasks(), started, settled);
			System.out.printf("Scale-up to a third %d-thread instance of the production-shaped application at Kafka's "
					+ "default heartbeat: %d input tasks moved in %d ms, longest stall %d ms (bound %d ms)%n",
					ProductionApplication.THREADS, moved.size(), Duration.between(started, settled).toMillis(),
					stall.toMillis(), STALL_BOUND.toMillis());
			assertThat(ProductionApplication.restoredAtPromotion(List.of(c))).as("records restored at promotion")
				.allSatisfy((task, records) -> assertThat(records)
					.isLessThanOrEqualTo(ProductionApplication.ACCEPTABLE_LAG));
			assertThat(c.restoredRecords().promoted()).as("c's tasks were learners first").containsAll(moved);
			assertThat(stall).as("longest stall of any input task").isLessThanOrEqualTo(STALL_BOUND);
			run.verifyCounts(producer);
		}
	}

	private static Set<TaskId> inputTasksOf(StreamsInstance instance) {
		return instance.activeTasks().stream().filter((task) -> task.subtopology() == 0).collect(Collectors.toSet());
	}

}
