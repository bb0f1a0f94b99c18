package io.github.incrementalrebalance.planner;

import java.util.Locale;
import java.util.Objects;

import org.apache.kafka.streams.processor.TaskId;

/**
 * A move the planner wants but did not make this round.
 *
 * @param task the task
 * @param from the instance running it
 * @param to the instance it should go to
 * @param reason why it waits
 */
public record WaitingMove(TaskId task, String from, String to, WaitReason reason) {

	public WaitingMove {
		Objects.requireNonNull(task, "task");
		Objects.requireNonNull(from, "from");
		Objects.requireNonNull(to, "to");
		Objects.requireNonNull(reason, "reason");
	}

	@Override
	public String toString() {
		return this.task + " " + this.from + "->" + this.to + " ("
				+ this.reason.name().toLowerCase(Locale.ROOT).replace('_', ' ') + ")";
	}

}
