package io.github.incrementalrebalance.planner;

import java.util.Objects;

import org.apache.kafka.streams.processor.TaskId;

/**
 * A standby placed on a task's next owner so its state is warm before the task moves.
 *
 * @param task the task being learned
 * @param lag the learner's lag when the plan was made
 * @param ready whether the lag is at or below {@code acceptable.recovery.lag}
 */
public record Learner(TaskId task, long lag, boolean ready) {

	public Learner {
		Objects.requireNonNull(task, "task");
	}

}
