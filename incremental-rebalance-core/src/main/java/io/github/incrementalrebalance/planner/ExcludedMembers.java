package io.github.incrementalrebalance.planner;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ProcessId;

/**
 * The step that moves tasks off members the policy does not let run them, as a leaving member's tasks are moved: at
 * once when the task is stateless or another member is caught up on it, else once a learner on a member the policy
 * allows is. These learners are not capped by {@code max.warmup.replicas}: the policy asks for them, not the balance.
 */
final class ExcludedMembers {

	private final RoundState round;

	ExcludedMembers(RoundState round) {
		this.round = round;
	}

	void apply() {
		List<Map.Entry<TaskId, ProcessId>> excluded = this.round.active.entrySet().stream()
			.filter((entry) -> entry.getValue().equals(this.round.runningOwner.get(entry.getKey()))
					&& !this.round.leaving.containsKey(entry.getValue())
					&& !this.round.learnerAt.containsKey(entry.getKey())
					&& !this.round.mayRun(this.round.group.tasks().get(entry.getKey()), entry.getValue()))
			.toList();
		for (Map.Entry<TaskId, ProcessId> entry : excluded) {
			TaskId task = entry.getKey();
			ProcessId owner = entry.getValue();
			GroupTask groupTask = this.round.group.tasks().get(task);
			if (this.round.mayTakeWork.stream().noneMatch((member) -> this.round.policy.mayRun(groupTask, member))) {
				this.round.outsidePolicy.add(task);
				continue;
			}
			ProcessId target = this.round.target(task, owner, this.round.mayTakeWork);
			this.round.loads(task).move(task, owner, target);
			this.round.rules.gaveWorkTo(target, false);
			this.round.rules.decide(task);
			if (this.round.caughtUp(target, task)) {
				this.round.moveNow(task, Optional.of(owner), target, "excluded by the placement policy");
			}
			else {
				this.round.learnerAt.put(task, target);
				this.round.waitFor(task, owner, target, WaitReason.LEARNER_NOT_READY);
			}
		}
	}

}
