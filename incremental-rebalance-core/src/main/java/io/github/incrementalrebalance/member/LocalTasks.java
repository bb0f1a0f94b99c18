package io.github.incrementalrebalance.member;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.github.incrementalrebalance.planner.MemberPlan;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.LagInfo;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.TopologyDescription;
import org.apache.kafka.streams.processor.TaskId;

/**
 * The tasks of one start of Kafka Streams as this member sees them: what it runs, learns and keeps standby, and the
 * local lag of its learners and standbys. Any thread may ask for the tasks: their lags are the last sample the member
 * read on its own thread ({@link RecentLags}), never a request to the cluster on the caller's thread.
 */
final class LocalTasks {

	private final KafkaStreams streams;

	private final StoreTasks storeTasks;

	private final ReadyLag readyLag;

	private final RecentLags lags;

	LocalTasks(KafkaStreams streams, TopologyDescription topology, long acceptableRecoveryLag, Clock clock) {
		this(streams, topology, acceptableRecoveryLag, clock, null);
	}

	/**
	 * Tasks whose local lags are read by the given reader rather than from Kafka Streams (null: from Kafka Streams).
	 */
	LocalTasks(KafkaStreams streams, TopologyDescription topology, long acceptableRecoveryLag, Clock clock,
			Supplier<Map<TaskId, Long>> readLags) {
		this.streams = streams;
		this.storeTasks = StoreTasks.of(topology);
		this.readyLag = ReadyLag.of(acceptableRecoveryLag);
		this.lags = new RecentLags((readLags != null) ? readLags : this::readLags, clock);
	}

	/**
	 * The local lag of every learner and standby, read at most once per {@link RecentLags#FRESH_FOR}.
	 * @return the lags by task
	 */
	Supplier<Map<TaskId, Long>> lags() {
		return this.lags;
	}

	/**
	 * Read the lags on the member's check thread if someone took a stale sample since the last read.
	 */
	void readLagsIfWanted() {
		this.lags.readIfWanted();
	}

	/**
	 * When the lags {@link #tasks} reports were read.
	 * @return the moment, by the member's clock; empty before the first read
	 */
	Optional<Instant> lagsReadAt() {
		return this.lags.readAt();
	}

	/**
	 * This member's tasks, as of Kafka Streams' last assignment and the plan given; the lags of learners and standbys
	 * as last read.
	 * @param plan this start's plan, if one is known
	 * @return the tasks, sorted
	 */
	List<TaskState> tasks(Optional<MemberPlan> plan) {
		Set<TaskId> beingLearned = plan.map(MemberPlan::beingLearned).orElse(Collections.emptySortedSet());
		Set<TaskId> learning = plan.map((own) -> own.learning().keySet()).orElse(Set.of());
		Set<ThreadMetadata> threads = this.streams.metadataForLocalThreads();
		// only when there are standbys to report: each read is a ListOffsets call
		Map<TaskId, Long> lags = threads.stream().anyMatch((thread) -> !thread.standbyTasks().isEmpty())
				? this.lags.last().map(RecentLags.Sample::lags).orElse(Map.of()) : Map.of();
		List<TaskState> tasks = new ArrayList<>();
		for (ThreadMetadata thread : threads) {
			for (TaskMetadata active : thread.activeTasks()) {
				TaskId task = active.taskId();
				tasks.add(new TaskState(task, beingLearned.contains(task) ? TaskRole.BEING_LEARNED : TaskRole.ACTIVE,
						this.storeTasks.storesOf(task), OptionalLong.empty(), false));
			}
			for (TaskMetadata standby : thread.standbyTasks()) {
				TaskId task = standby.taskId();
				OptionalLong lag = lags.containsKey(task) ? OptionalLong.of(lags.get(task)) : OptionalLong.empty();
				boolean learner = learning.contains(task);
				tasks.add(new TaskState(task, learner ? TaskRole.LEARNING : TaskRole.STANDBY,
						this.storeTasks.storesOf(task), lag,
						learner && lag.isPresent() && this.readyLag.isReady(lag.getAsLong())));
			}
		}
		tasks.sort(Comparator.comparing(TaskState::task));
		return tasks;
	}

	/**
	 * How many stateful tasks this member runs: what a leave without learners moves cold.
	 */
	int statefulActiveTasks() {
		return (int) this.streams.metadataForLocalThreads()
			.stream()
			.flatMap((thread) -> thread.activeTasks().stream())
			.filter((task) -> !this.storeTasks.storesOf(task.taskId()).isEmpty())
			.count();
	}

	/**
	 * The stateful tasks this member runs: under the streams protocol, what a drain must find warm elsewhere.
	 */
	Set<TaskId> statefulActiveTaskIds() {
		return this.streams.metadataForLocalThreads()
			.stream()
			.flatMap((thread) -> thread.activeTasks().stream())
			.map(TaskMetadata::taskId)
			.filter((task) -> !this.storeTasks.storesOf(task).isEmpty())
			.collect(Collectors.toSet());
	}

	/**
	 * The standby tasks this member keeps.
	 */
	Set<TaskId> standbyTaskIds() {
		return this.streams.metadataForLocalThreads()
			.stream()
			.flatMap((thread) -> thread.standbyTasks().stream())
			.map(TaskMetadata::taskId)
			.collect(Collectors.toSet());
	}

	private Map<TaskId, Long> readLags() {
		Map<TaskId, Long> lags = new HashMap<>();
		for (Map.Entry<String, Map<Integer, LagInfo>> store : this.streams.allLocalStorePartitionLags().entrySet()) {
			store.getValue()
				.forEach((partition, lag) -> this.storeTasks.taskOf(store.getKey(), partition)
					.ifPresent((task) -> lags.merge(task, lag.offsetLag(), Long::sum)));
		}
		return lags;
	}

}
