package io.github.incrementalrebalance.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.github.incrementalrebalance.testkit.RestoredRecords;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import org.apache.kafka.streams.processor.TaskId;

import static org.awaitility.Awaitility.await;

/**
 * One scale-up of a group of two instances (a, b) while markers flow: c joins with no state. Measured from its start
 * until it runs its share of the tasks. Kafka's assignor moves a task to c only once a warm-up replica caught up, at a
 * probing rebalance ({@code probing.rebalance.interval.ms}, here its lowest allowed value, 1 minute); learners move it
 * when they are ready.
 */
final class ScaleUp implements Scenario {

	@Override
	public String name() {
		return "scale-up";
	}

	@Override
	public AvailabilityResult run(BenchmarkGroup group) {
		List<StreamsInstance> old = group.startLoaded("a", "b");
		StreamsInstance a = old.get(0);
		StreamsInstance b = old.get(1);
		Set<TaskId> all = StreamsInstance.activeTasksOf(a, b);
		Timeline timeline = new Timeline(Instant.now());

		StreamsInstance c = group.start("c");
		int partitions = group.settings().partitions();
		await("c runs its share").atMost(Duration.ofMinutes(10))
			.until(() -> StreamsInstance.allRunning(a, b, c) && c.activeTasks().size() >= partitions / 3
					&& StreamsInstance.activeTasksOf(a, b, c).size() == partitions
					&& group.gapMeter()
						.allProcessedOnSince(c.activeTasks(), List.of(c.name()), Instant.now().minusMillis(300)));

		Set<TaskId> moved = c.activeTasks();
		Set<TaskId> unmoved = new HashSet<>(all);
		unmoved.removeAll(moved);
		Instant to = Instant.now();
		timeline.read(to, group.gapMeter(), moved, List.of(a, b), a, b, c);
		timeline.readWarmUps(c, moved, group.settings().acceptableLag());
		long restored = moved.stream().mapToLong((task) -> c.restoredRecords().restoredInto(task)).sum();
		if (group.strategy().learners()) {
			// what the learners' figures claim: the newcomer took its share warm, not by a restore
			RestoredRecords.assertRestoredAtPromotionAtMost(group.settings().acceptableLag(), moved, c.restoredRecords());
		}
		return group.measure(moved, unmoved, timeline, to, restored,
				Math.max(a.rebalancesSince(timeline.start()), b.rebalancesSince(timeline.start())));
	}

}
