package io.github.incrementalrebalance.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

import io.github.incrementalrebalance.testkit.StreamsInstance;
import org.apache.kafka.streams.processor.TaskId;

import static org.awaitility.Awaitility.await;

/**
 * A scale-out by several instances at once: {@code before} instances run every task, then {@code after - before}
 * new ones start with no state. Measured from their start until every instance runs its even share; the tasks moved
 * are the tasks whose owner differs then, which a minimal movement keeps to the new instances' share. Kafka's
 * assignor warms up at most {@code max.warmup.replicas} (2) tasks at a time and moves them at a probing rebalance
 * (here every minute, its lowest allowed interval); learners move a task once it is ready.
 */
final class ScaleOut implements Scenario {

	private final int before;

	private final int after;

	ScaleOut(int before, int after) {
		this.before = before;
		this.after = after;
	}

	@Override
	public String name() {
		return "scale-out-" + this.before + "-" + this.after;
	}

	@Override
	public AvailabilityResult run(BenchmarkGroup group) {
		List<StreamsInstance> old = group
			.startLoaded(IntStream.range(0, this.before).mapToObj(ScaleOut::name).toArray(String[]::new));
		int shareBefore = group.settings().partitions() / this.before;
		await("every old instance runs its share").atMost(Duration.ofMinutes(5))
			.until(() -> old.stream().allMatch((instance) -> instance.activeTasks().size() == shareBefore));
		Map<TaskId, String> ownerBefore = owners(old);
		Timeline timeline = new Timeline(Instant.now());

		List<StreamsInstance> all = new ArrayList<>(old);
		for (int instance = this.before; instance < this.after; instance++) {
			all.add(group.start(name(instance)));
		}
		StreamsInstance[] instances = all.toArray(StreamsInstance[]::new);
		int share = group.settings().partitions() / this.after;
		await("every instance runs its share").atMost(Duration.ofMinutes(15))
			.until(() -> StreamsInstance.allRunning(instances)
					&& all.stream().allMatch((instance) -> instance.activeTasks().size() == share)
					&& group.gapMeter().eachProcessedOnItsOwnerSince(owners(all), Instant.now().minusMillis(300)));

		Instant to = Instant.now();
		Map<TaskId, String> ownerAfter = owners(all);
		Set<TaskId> moved = new HashSet<>();
		ownerBefore.forEach((task, owner) -> {
			if (!owner.equals(ownerAfter.get(task))) {
				moved.add(task);
			}
		});
		Set<TaskId> unmoved = new HashSet<>(ownerBefore.keySet());
		unmoved.removeAll(moved);
		timeline.read(to, group.gapMeter(), moved, old, instances);
		all.subList(this.before, this.after)
			.forEach((newcomer) -> timeline.readWarmUps(newcomer, newcomer.activeTasks(),
					group.settings().acceptableLag()));
		long restored = moved.stream()
			.mapToLong((task) -> all.stream().mapToLong((instance) -> instance.restoredRecords().restoredInto(task)).sum())
			.sum();
		long rebalances = old.stream().mapToLong((instance) -> instance.rebalancesSince(timeline.start())).max()
			.orElse(0);
		return group.measure(moved, unmoved, timeline, to, restored, rebalances);
	}

	private static String name(int instance) {
		return String.valueOf((char) ('a' + instance));
	}

	private static Map<TaskId, String> owners(List<StreamsInstance> instances) {
		Map<TaskId, String> owners = new HashMap<>();
		instances.forEach((instance) -> instance.activeTasks().forEach((task) -> owners.put(task, instance.name())));
		return owners;
	}

}
