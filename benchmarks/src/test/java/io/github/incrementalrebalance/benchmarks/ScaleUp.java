package io.github.incrementalrebalance.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;

import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.GapMeter;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.streams.processor.TaskId;

import static org.awaitility.Awaitility.await;

/**
 * One scale-up of a group of two instances (a, b) while markers flow: c joins with no state. Measured from its start
 * until it runs its share of the tasks. Kafka's assignor moves a task to c only once a warm-up replica caught up, at a
 * probing rebalance ({@code probing.rebalance.interval.ms}, here its lowest allowed value, 1 minute); learners move it
 * when they are ready.
 */
final class ScaleUp {

	private ScaleUp() {
	}

	static AvailabilityResult run(KafkaBroker broker, Path stateRoot, Strategy strategy,
			BenchmarkGroup.Settings settings) {
		CountingApplication application = new CountingApplication(broker, "scale-up-" + strategy.id(),
				settings.partitions());
		try (TrackingProducer producer = application.producer();
				StreamsLauncher launcher = BenchmarkGroup.launcher(application, stateRoot, strategy, settings)) {
			StreamsInstance a = BenchmarkGroup.start(launcher, "a", strategy, settings);
			StreamsInstance b = BenchmarkGroup.start(launcher, "b", strategy, settings);
			application.loadAndSettle(producer, settings.keysPerTask(), a, b);
			Set<TaskId> all = StreamsInstance.activeTasksOf(a, b);
			Instant from = Instant.now();

			StreamsInstance c = BenchmarkGroup.start(launcher, "c", strategy, settings);
			int share = settings.partitions() / 3;
			await("c runs its share").atMost(Duration.ofMinutes(10))
				.until(() -> StreamsInstance.allRunning(a, b, c) && c.activeTasks().size() >= share
						&& StreamsInstance.activeTasksOf(a, b, c).size() == settings.partitions()
						&& application.gapMeter().allProcessedSince(c.activeTasks(), Instant.now().minusMillis(300)));
			Instant to = Instant.now();

			Set<TaskId> moved = c.activeTasks();
			Set<TaskId> unmoved = new HashSet<>(all);
			unmoved.removeAll(moved);
			GapMeter gaps = application.gapMeter();
			long restored = moved.stream().mapToLong((task) -> c.restoredRecords().restoredInto(task)).sum();
			AvailabilityResult result = new AvailabilityResult(strategy, gaps.longestGap(moved, from, to),
					gaps.longestGap(unmoved, from, to), gaps.latencyPercentile(moved, from, to, 99),
					gaps.latencyPercentile(unmoved, from, to, 99), Duration.between(from, to), restored,
					Math.max(a.rebalancesSince(from), b.rebalancesSince(from)));
			application.verifyCounts(producer);
			return result;
		}
	}

}
