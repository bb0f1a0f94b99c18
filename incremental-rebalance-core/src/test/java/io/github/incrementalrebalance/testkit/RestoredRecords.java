package io.github.incrementalrebalance.testkit;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.github.incrementalrebalance.member.StoreTasks;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.processor.StandbyUpdateListener;
import org.apache.kafka.streams.processor.TaskId;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Counts, per task, the records an instance restored into active tasks and which standbys it promoted. A task that
 * moved onto a warm learner restores at most the learner's last lag; a cold move restores the whole state.
 * Listeners run on the state updater threads, one per stream thread, so everything here is thread-safe.
 */
public final class RestoredRecords implements StateRestoreListener, StandbyUpdateListener {

	private final StoreTasks storeTasks;

	private final Map<TaskId, AtomicLong> restored = new ConcurrentHashMap<>();

	private final Map<TaskId, Instant> promotedAt = new ConcurrentHashMap<>();

	private final Map<TaskId, Instant> restoreEndedAt = new ConcurrentHashMap<>();

	private final Set<TaskId> restoresBegun = ConcurrentHashMap.newKeySet();

	private final Map<TaskId, List<Loaded>> standbyBatches = new ConcurrentHashMap<>();

	private final Map<TaskId, Instant> standbyRegisteredAt = new ConcurrentHashMap<>();

	RestoredRecords(StoreTasks storeTasks) {
		this.storeTasks = storeTasks;
	}

	/**
	 * Counts for an instance of a topology built elsewhere (a Spring Boot application's factory bean): set it as the
	 * instance's global restore listener and, where the instance allows, its standby update listener.
	 * @param topology the instance's topology
	 * @return the counts, empty so far
	 */
	public static RestoredRecords of(Topology topology) {
		return new RestoredRecords(StoreTasks.of(topology.describe()));
	}

	/**
	 * Records restored into active tasks of this instance, in total.
	 * @param task the task
	 * @return the number of records
	 */
	public long restoredInto(TaskId task) {
		AtomicLong count = this.restored.get(task);
		return (count != null) ? count.get() : 0;
	}

	/**
	 * @param moved the tasks that moved
	 * @param newOwners the counts of the instances that may run them now
	 * @return the records restored into those tasks at their promotion, on every instance given
	 */
	public static long restoredInto(Collection<TaskId> moved, RestoredRecords... newOwners) {
		return moved.stream()
			.mapToLong((task) -> Arrays.stream(newOwners).mapToLong((owner) -> owner.restoredInto(task)).sum())
			.sum();
	}

	/**
	 * Assert that each moved task restored at most a learner's lag when it became active, counting its restores on
	 * every instance that may have taken it: a move onto a ready learner reads only what the learner lagged, a cold
	 * one the whole state.
	 * @param acceptableLag the most a task may restore (the instances' {@code acceptable.recovery.lag})
	 * @param moved the tasks that moved
	 * @param newOwners the counts of the instances that may run them now
	 */
	public static void assertRestoredAtPromotionAtMost(long acceptableLag, Collection<TaskId> moved,
			RestoredRecords... newOwners) {
		for (TaskId task : moved) {
			long restored = Arrays.stream(newOwners).mapToLong((owner) -> owner.restoredInto(task)).sum();
			assertThat(restored).as("records restored at promotion of %s", task).isLessThanOrEqualTo(acceptableLag);
		}
	}

	public Map<TaskId, Long> restoredByTask() {
		Map<TaskId, Long> copy = new ConcurrentHashMap<>();
		this.restored.forEach((task, count) -> copy.put(task, count.get()));
		return copy;
	}

	/**
	 * Tasks that began restoring records into an active task here (a start with nothing to restore, as on an empty
	 * changelog, does not count): from then on the records of that restore are counted, however fast it goes, so a
	 * test can let a throttled restore run free once a moved task has begun it.
	 * @return the tasks
	 */
	public Set<TaskId> restoresBegun() {
		return Set.copyOf(this.restoresBegun);
	}

	/**
	 * Tasks whose standby on this instance became the active task.
	 * @return the promoted tasks
	 */
	public Set<TaskId> promoted() {
		return Set.copyOf(this.promotedAt.keySet());
	}

	/**
	 * When this instance's standby of a task was last suspended to become the active task: Kafka Streams took it out
	 * of the state updater for its promotion.
	 * @param task the task
	 * @return the moment, empty when its standby here was never promoted
	 */
	public Optional<Instant> promotedAt(TaskId task) {
		return Optional.ofNullable(this.promotedAt.get(task));
	}

	/**
	 * When an active task of this instance last finished restoring a store (for a promoted learner, reading past the
	 * old owner's last commit).
	 * @param task the task
	 * @return the moment, empty when it restored none here
	 */
	public Optional<Instant> restoreEndedAt(TaskId task) {
		return Optional.ofNullable(this.restoreEndedAt.get(task));
	}

	/**
	 * How a standby of a task (a learner, a warm-up replica) warmed up on this instance: from its first loaded batch
	 * to the first batch that left it at most an acceptable lag behind the changelog's end.
	 * @param task the task
	 * @param acceptableLag the lag at which it counts as caught up
	 * @return the warm-up, empty when the standby loaded nothing or has not caught up yet
	 */
	public Optional<WarmUp> warmUp(TaskId task, long acceptableLag) {
		List<Loaded> batches = this.standbyBatches.getOrDefault(task, List.of());
		synchronized (batches) {
			return batches.stream()
				.filter((batch) -> batch.lag() <= acceptableLag)
				.findFirst()
				.map((caughtUp) -> new WarmUp(batches.get(0).at(), caughtUp.at()));
		}
	}

	@Override
	public void onRestoreStart(TopicPartition partition, String storeName, long startingOffset, long endingOffset) {
		if (endingOffset > startingOffset) {
			this.storeTasks.taskOf(storeName, partition).ifPresent(this.restoresBegun::add);
		}
	}

	@Override
	public void onBatchRestored(TopicPartition partition, String storeName, long batchEndOffset, long numRestored) {
		this.storeTasks.taskOf(storeName, partition)
			.ifPresent((task) -> this.restored.computeIfAbsent(task, (t) -> new AtomicLong()).addAndGet(numRestored));
	}

	@Override
	public void onRestoreEnd(TopicPartition partition, String storeName, long totalRestored) {
		this.storeTasks.taskOf(storeName, partition)
			.ifPresent((task) -> this.restoreEndedAt.merge(task, Instant.now(), RestoredRecords::later));
	}

	@Override
	public void onUpdateStart(TopicPartition partition, String storeName, long startingOffset) {
		this.storeTasks.taskOf(storeName, partition)
			.ifPresent((task) -> this.standbyRegisteredAt.putIfAbsent(task, Instant.now()));
	}

	@Override
	public void onBatchLoaded(TopicPartition partition, String storeName, TaskId taskId, long batchEndOffset,
			long batchSize, long currentEndOffset) {
		List<Loaded> batches = this.standbyBatches.computeIfAbsent(taskId, (task) -> new ArrayList<>());
		synchronized (batches) {
			batches.add(new Loaded(Instant.now(), Math.max(0, currentEndOffset - batchEndOffset)));
		}
	}

	@Override
	public void onUpdateSuspended(TopicPartition partition, String storeName, long storeOffset, long currentEndOffset,
			SuspendReason reason) {
		if (reason == SuspendReason.PROMOTED) {
			this.storeTasks.taskOf(storeName, partition).ifPresent((task) -> this.promotedAt.put(task, Instant.now()));
		}
	}

	private static Instant later(Instant one, Instant other) {
		return one.isAfter(other) ? one : other;
	}

	/**
	 * How long a standby of a task (a learner) was restoring on this instance: from when Kafka Streams handed it to
	 * its state updater (the plan placed it) to its first batch within an acceptable lag, however the restore
	 * consumer shared its fetches among the standbys meanwhile.
	 * @param task the task
	 * @param acceptableLag the lag at which it counts as caught up
	 * @return from placement to caught up, empty when it was never placed here or has not caught up yet
	 */
	public Optional<WarmUp> restoringFromPlacement(TaskId task, long acceptableLag) {
		Instant placed = this.standbyRegisteredAt.get(task);
		return (placed != null) ? warmUp(task, acceptableLag).map((warmUp) -> new WarmUp(placed, warmUp.caughtUp()))
				: Optional.empty();
	}

	/**
	 * A standby's warm-up.
	 * @param started its first loaded batch
	 * @param caughtUp its first batch within the acceptable lag
	 */
	public record WarmUp(Instant started, Instant caughtUp) {
	}

	private record Loaded(Instant at, long lag) {
	}

}
