package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.ProductionApplication;
import io.github.incrementalrebalance.testkit.RestoreThrottle;
import io.github.incrementalrebalance.testkit.StallBound;
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

	private static final long ACCEPTABLE_LAG = 1_000;

	private static final int KEYS_PER_TASK = 4_000;

	/** 1 s on a quiet machine; under the build's parallel forks, Kafka's default session timeout. */
	private static final Duration STALL_BOUND = StallBound.of(Duration.ofSeconds(1), Duration.ofSeconds(45));

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@Test
	void newFourThreadInstanceTakesItsShareWarmWithoutATaskStallingForAHeartbeat() {
		ProductionApplication run = new ProductionApplication(broker, "scale-up-threads", PARTITIONS);
		try (TrackingProducer producer = run.producer(); StreamsLauncher launcher = launcher(run)) {
			StreamsInstance a = start(launcher, "a");
			StreamsInstance b = start(launcher, "b");
			run.loadAndSettle(producer, KEYS_PER_TASK, a, b);
			Instant started = Instant.now();

			StreamsInstance c = start(launcher, "c");

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
			for (Map.Entry<TaskId, Long> restored : c.restoredRecords().restoredByTask().entrySet()) {
				assertThat(restored.getValue()).as("records restored at promotion of %s", restored.getKey())
					.isLessThanOrEqualTo(ACCEPTABLE_LAG);
			}
			assertThat(c.restoredRecords().promoted()).as("c's tasks were learners first").containsAll(moved);
			assertThat(stall).as("longest stall of any input task").isLessThanOrEqualTo(STALL_BOUND);
			run.verifyCounts(producer);
		}
	}

	private static Set<TaskId> inputTasksOf(StreamsInstance instance) {
		return instance.activeTasks().stream().filter((task) -> task.subtopology() == 0).collect(Collectors.toSet());
	}

	private static StreamsInstance start(StreamsLauncher launcher, String name) {
		return launcher.instance(name)
			.restoreThrottle(RestoreThrottle.of(5_000))
			.memberRuntime()
			.start();
	}

	private StreamsLauncher launcher(ProductionApplication application) {
		return application.launcher(this.stateRoot.resolve(application.applicationId()))
			.kafkaDefaultGroupTimings()
			.property(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, ACCEPTABLE_LAG)
			.property(LearnerConfig.LEARNER_PROBE_INTERVAL_MS_CONFIG, Duration.ofMinutes(5).toMillis());
	}

}
