package io.github.incrementalrebalance.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.GapMeter;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.streams.processor.TaskId;

import static org.awaitility.Awaitility.await;

/**
 * One scale-down of a group of three instances (a, b, c) while markers flow: b leaves, by a leave request with
 * learners or by closing without them. Measured from the request (or the close) until a and c run every task and b's
 * tasks process again.
 */
final class ScaleDown {

	private ScaleDown() {
	}

	static AvailabilityResult run(KafkaBroker broker, Path stateRoot, Strategy strategy,
			BenchmarkGroup.Settings settings) {
		CountingApplication application = new CountingApplication(broker, "scale-down-" + strategy.id(),
				settings.partitions());
		try (TrackingProducer producer = application.producer();
				StreamsLauncher launcher = BenchmarkGroup.launcher(application, stateRoot, strategy, settings)) {
			StreamsInstance a = BenchmarkGroup.start(launcher, "a", strategy, settings);
			StreamsInstance b = BenchmarkGroup.start(launcher, "b", strategy, settings);
			StreamsInstance c = BenchmarkGroup.start(launcher, "c", strategy, settings);
			application.loadAndSettle(producer, settings.keysPerTask(), a, b, c);
			Set<TaskId> moved = b.activeTasks();
			Set<TaskId> unmoved = StreamsInstance.activeTasksOf(a, c);
			Instant from = Instant.now();

			if (strategy.learners()) {
				b.runtime().leave(Optional.empty(), "benchmark");
				await("b drained").atMost(Duration.ofMinutes(10))
					.until(() -> b.runtime().state() == MemberState.CLOSED);
			}
			else {
				b.close();
			}
			await("a and c run every task").atMost(Duration.ofMinutes(10))
				.until(() -> StreamsInstance.allRunning(a, c)
						&& StreamsInstance.activeTasksOf(a, c).size() == settings.partitions()
						&& application.gapMeter().allProcessedSince(moved, Instant.now().minusMillis(300)));
			Instant to = Instant.now();

			GapMeter gaps = application.gapMeter();
			long restored = moved.stream()
				.mapToLong((task) -> a.restoredRecords().restoredInto(task) + c.restoredRecords().restoredInto(task))
				.sum();
			AvailabilityResult result = new AvailabilityResult(strategy, gaps.longestGap(moved, from, to),
					gaps.longestGap(unmoved, from, to), gaps.latencyPercentile(moved, from, to, 99),
					gaps.latencyPercentile(unmoved, from, to, 99), Duration.between(from, to), restored,
					Math.max(a.rebalancesSince(from), c.rebalancesSince(from)));
			application.verifyCounts(producer);
			return result;
		}
	}

}
