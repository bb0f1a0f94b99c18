package io.github.incrementalrebalance.planner;

import java.util.Objects;

import org.apache.kafka.streams.processor.TaskId;

/**
 * A task of the application.
 *
 * @param id the task
 * @param stateful whether it has a changelogged store, that is state a learner can warm up; a task whose stores are
 * all without changelog counts as stateless
 */
public record GroupTask(TaskId id, boolean stateful) {

	public GroupTask {
		Objects.requireNonNull(id, "id");
	}

	public static GroupTask stateful(TaskId id) {
		return new GroupTask(id, true);
	}

}
