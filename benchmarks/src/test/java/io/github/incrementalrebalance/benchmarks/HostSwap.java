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
 * One host swap, as a blue-green deploy does it: two instances (a, b) run every task; two new ones (c, d) start with
 * no state, and once they run, a and b go: asked to leave together (learners), or closed together (Kafka). Measured
 * from the moment c and d run until they run every task and a and b are gone; every task moves.
 */
final class HostSwap {

	private HostSwap() {
	}

	static AvailabilityResult run(KafkaBroker broker, Path stateRoot, Strategy strategy,
			BenchmarkGroup.Settings settings) {
		CountingApplication application = new CountingApplication(broker, "host-swap-" + strategy.id(),
				settings.partitions());
		try (TrackingProducer producer = application.producer();
				StreamsLauncher launcher = BenchmarkGroup.launcher(application, stateRoot, strategy, settings)) {
			StreamsInstance a = BenchmarkGroup.start(launcher, "a", strategy, settings);
			StreamsInstance b = BenchmarkGroup.start(launcher, "b", strategy, settings);
			application.loadAndSettle(producer, settings.keysPerTask(), a, b);
			Set<TaskId> all = StreamsInstance.activeTasksOf(a, b);
			StreamsInstance c = BenchmarkGroup.start(launcher, "c", strategy, settings);
			StreamsInstance d = BenchmarkGroup.start(launcher, "d", strategy, settings);
			await("c and d run").atMost(Duration.ofMinutes(2)).until(() -> StreamsInstance.allRunning(a, b, c, d));
			Instant from = Instant.now();

			if (strategy.learners()) {
				a.runtime().leave(Optional.empty(), "benchmark");
				b.runtime().leave(Optional.empty(), "benchmark");
				await("a and b drained").atMost(Duration.ofMinutes(10))
					.until(() -> a.runtime().state() == MemberState.CLOSED
							&& b.runtime().state() == MemberState.CLOSED);
			}
			else {
				a.close();
				b.close();
			}
			await("c and d run every task").atMost(Duration.ofMinutes(10))
				.until(() -> StreamsInstance.allRunning(c, d)
						&& StreamsInstance.activeTasksOf(c, d).size() == settings.partitions()
						&& application.gapMeter().allProcessedSince(all, Instant.now().minusMillis(300)));
			Instant to = Instant.now();

			GapMeter gaps = application.gapMeter();
			long restored = all.stream()
				.mapToLong((task) -> c.restoredRecords().restoredInto(task) + d.restoredRecords().restoredInto(task))
				.sum();
			AvailabilityResult result = new AvailabilityResult(strategy, gaps.longestGap(all, from, to), Duration.ZERO,
					gaps.latencyPercentile(all, from, to, 99), Duration.ZERO, Duration.between(from, to), restored,
					Math.max(c.rebalancesSince(from), d.rebalancesSince(from)));
			application.verifyCounts(producer);
			return result;
		}
	}

}
