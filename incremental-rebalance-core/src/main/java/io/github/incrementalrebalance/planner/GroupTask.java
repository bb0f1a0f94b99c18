package io.github.incrementalrebalance.planner;

import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;

import org.apache.kafka.streams.processor.TaskId;

/**
 * A task of the application.
 *
 * @param id the task
 * @param stateful whether it has a changelogged store, that is state a learner can warm up; a task whose stores are
 * all without changelog counts as stateless
 * @param partitionRacks for each of its source and changelog partitions, the racks of its replicas: empty when the
 * racks are unknown or rack-aware assignment is off
 * @param changelogRecords the records in its changelog partitions, from their start to their end offsets (what
 * restoring it from scratch reads): read only with {@code incremental.rebalance.task.weight=state-size}, else empty
 */
public record GroupTask(TaskId id, boolean stateful, List<Set<String>> partitionRacks, OptionalLong changelogRecords) {

	public GroupTask {
		Objects.requireNonNull(id, "id");
		Objects.requireNonNull(changelogRecords, "changelogRecords");
		partitionRacks = partitionRacks.isEmpty() ? List.of() : partitionRacks.stream().map(Set::copyOf).toList();
	}

	/**
	 * A task whose changelogs were not read.
	 * @param id the task
	 * @param stateful whether it has a changelogged store
	 * @param partitionRacks the racks of its partitions' replicas, or empty
	 */
	public GroupTask(TaskId id, boolean stateful, List<Set<String>> partitionRacks) {
		this(id, stateful, partitionRacks, OptionalLong.empty());
	}

	/**
	 * A task without rack information, whose changelogs were not read.
	 * @param id the task
	 * @param stateful whether it has a changelogged store
	 */
	public GroupTask(TaskId id, boolean stateful) {
		this(id, stateful, List.of());
	}

	public static GroupTask stateful(TaskId id) {
		return new GroupTask(id, true);
	}

	/**
	 * The task's sub-topology, as Kafka numbers it.
	 * @return the sub-topology id
	 */
	public int subtopology() {
		return this.id.subtopology();
	}

}
