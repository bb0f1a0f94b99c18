package io.github.incrementalrebalance.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.incrementalrebalance.control.LeaveRecord;
import io.github.incrementalrebalance.testkit.GapMeter;
import io.github.incrementalrebalance.testkit.RestoredRecords;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import org.apache.kafka.streams.processor.TaskId;

/**
 * Where the time of one change went: the moments of its steps (a leave's hand-over decided, the leaver out of the
 * group, the others rebalancing and running again, the moved tasks' last record on their old owner and first on the
 * new one), as offsets from the change's start. Listeners mark what happens while it runs; the instances' state
 * transitions and the markers are read once it is done.
 */
final class Timeline {

	private final Instant start;

	private final List<Step> steps = new CopyOnWriteArrayList<>();

	Timeline(Instant start) {
		this.start = start;
	}

	Instant start() {
		return this.start;
	}

	void mark(String step) {
		mark(step, Instant.now());
	}

	void mark(String step, Instant at) {
		this.steps.add(new Step(step, Duration.between(this.start, at).toMillis()));
	}

	/**
	 * Mark the member runtime's state changes of a leaving instance (leaving, its hand-over decided, closed), and when
	 * another instance reads the record that says the leaver is out of the group.
	 * @param leaver the instance that leaves
	 * @param reader an instance that stays, reading the control topic
	 */
	void followLeave(StreamsInstance leaver, StreamsInstance reader) {
		leaver.runtime()
			.addStateListener((state) -> mark(leaver.name() + " " + state.name().toLowerCase(Locale.ROOT)));
		reader.runtime().controlView().addListener((record) -> {
			if (record instanceof LeaveRecord leave && leave.instanceId().equals(leaver.name())
					&& leave.ended().isPresent()) {
				mark(leaver.name() + " out of the group (read by " + reader.name() + ")");
			}
		});
	}

	/**
	 * Read, once the change is done, what the instances and the moved tasks did meanwhile.
	 * @param to when the change was done
	 * @param gaps the markers processed
	 * @param moved the tasks that moved
	 * @param from the instances they moved from
	 * @param instances every instance of the group
	 */
	void read(Instant to, GapMeter gaps, Collection<TaskId> moved, Collection<StreamsInstance> from,
			StreamsInstance... instances) {
		for (StreamsInstance instance : instances) {
			instance.stateChangesSince(this.start)
				.stream()
				.filter((change) -> !change.at().isAfter(to))
				.forEach((change) -> mark(instance.name() + " " + change.to().name().toLowerCase(Locale.ROOT),
						change.at()));
		}
		Map<TaskId, Instant> lastOnOldOwner = new HashMap<>();
		for (TaskId task : moved) {
			from.stream()
				.map((instance) -> gaps.lastProcessedBy(task, instance.name(), this.start, to))
				.flatMap(Optional::stream)
				.max(Comparator.naturalOrder())
				.ifPresent((at) -> lastOnOldOwner.put(task, at));
		}
		lastOnOldOwner.values()
			.stream()
			.max(Comparator.naturalOrder())
			.ifPresent((at) -> mark("moved tasks' last record on their old owner", at));
		moved.stream()
			.map((task) -> gaps.firstProcessedAfter(task, lastOnOldOwner.getOrDefault(task, this.start)))
			.flatMap(Optional::stream)
			.max(Comparator.naturalOrder())
			.ifPresent((at) -> mark("moved tasks' first record on their new owner (the last of them)", at));
	}

	/**
	 * Read how the standbys of some tasks (learners, Kafka's warm-ups) warmed up on an instance: when the first
	 * started loading, and when the last caught up. Warm-ups on one instance share its restore bandwidth (here the
	 * throttle), so the time from the first start to the last catch-up is what a balanced group waits for.
	 * @param instance the instance
	 * @param tasks the tasks
	 * @param acceptableLag the lag at which a standby counts as caught up
	 */
	void readWarmUps(StreamsInstance instance, Collection<TaskId> tasks, long acceptableLag) {
		List<RestoredRecords.WarmUp> warmUps = tasks.stream()
			.map((task) -> instance.restoredRecords().warmUp(task, acceptableLag))
			.flatMap(Optional::stream)
			.toList();
		warmUps.stream()
			.map(RestoredRecords.WarmUp::started)
			.min(Comparator.naturalOrder())
			.ifPresent((at) -> mark("warm-ups on " + instance.name() + " start", at));
		warmUps.stream()
			.map(RestoredRecords.WarmUp::caughtUp)
			.max(Comparator.naturalOrder())
			.ifPresent((at) -> mark("warm-ups on " + instance.name() + " caught up", at));
	}

	/**
	 * The steps, in the order they happened.
	 * @return the steps
	 */
	List<Step> steps() {
		return this.steps.stream().sorted(Comparator.comparingLong(Step::atMs)).toList();
	}

	/**
	 * One step of a change.
	 * @param name what happened
	 * @param atMs when, after the change's start
	 */
	record Step(String name, long atMs) {
	}

}
