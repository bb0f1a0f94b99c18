package io.github.incrementalrebalance.planner;

import java.util.Objects;
import java.util.Optional;

import org.apache.kafka.streams.processor.TaskId;

/**
 * A task given to a new owner this round.
 *
 * @param task the task
 * @param from the instance that ran it, empty for a task nobody ran
 * @param to the instance that gets it
 * @param why why it moved, in the decision log's words
 * @param lag the new owner's lag on the task when it got it ({@code 0} for a stateless task)
 */
public record Move(TaskId task, Optional<String> from, String to, String why, long lag) {

	public Move {
		Objects.requireNonNull(task, "task");
		Objects.requireNonNull(from, "from");
		Objects.requireNonNull(to, "to");
		Objects.requireNonNull(why, "why");
	}

	@Override
	public String toString() {
		return this.task + " " + this.from.orElse("-") + "->" + this.to + " (" + this.why + ", lag " + this.lag + ")";
	}

}
