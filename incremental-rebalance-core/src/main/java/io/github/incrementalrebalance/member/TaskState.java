package io.github.incrementalrebalance.member;

import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

import org.apache.kafka.streams.processor.TaskId;

/**
 * One task of this member.
 *
 * @param task the task
 * @param role what the member does with it
 * @param stores its state stores; empty for a stateless task
 * @param lag for learners and standbys, how many changelog records the local state misses
 * @param ready for learners, whether the lag is within the {@link ReadyLag} the member acts on
 */
public record TaskState(TaskId task, TaskRole role, List<String> stores, OptionalLong lag, boolean ready) {

	public TaskState {
		Objects.requireNonNull(task, "task");
		Objects.requireNonNull(role, "role");
		Objects.requireNonNull(lag, "lag");
		stores = List.copyOf(stores);
	}

	/**
	 * Whether the task has state to restore.
	 * @return true when it has a state store
	 */
	public boolean stateful() {
		return !this.stores.isEmpty();
	}

}
