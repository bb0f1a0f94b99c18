package io.github.incrementalrebalance.planner;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ProcessId;

/**
 * The drain step: every leaving member's stateful tasks get a learner elsewhere, its stateless tasks move at once,
 * and the member hands over now, moves its ready tasks one by one (eager) or waits for all of its learners
 * (conservative). While the leave requests may be out of date, nothing of a leaving member moves and none hands over:
 * its learners warm up, and it keeps its tasks until the leader reads the control topic again.
 */
final class Drains {

	private final RoundState round;

	Drains(RoundState round) {
		this.round = round;
	}

	void apply() {
		for (Map.Entry<ProcessId, LeaveRequest> entry : this.round.leaving.entrySet()) {
			ProcessId leaver = entry.getKey();
			List<TaskId> tasks = this.round.runningOwner.entrySet().stream()
				.filter((owned) -> owned.getValue().equals(leaver))
				.map(Map.Entry::getKey)
				.toList();
			if (this.round.noOtherMember) {
				if (!this.round.handOversHeld) {
					this.round.handOver.put(leaver, HandOverReason.NO_OTHER_MEMBER);
				}
				continue;
			}
			if (this.round.mixedModes) {
				tasks.forEach((task) -> this.round.active.put(task, leaver));
				if (!this.round.handOversHeld) {
					this.round.handOver.put(leaver, HandOverReason.LEARNERS_UNAVAILABLE);
				}
				continue;
			}
			drain(leaver, tasks);
		}
	}

	private void drain(ProcessId leaver, List<TaskId> tasks) {
		Map<TaskId, ProcessId> targets = new TreeMap<>();
		for (TaskId task : tasks) {
			if (this.round.handOversHeld && !this.round.isStateful(task)) {
				this.round.active.put(task, leaver);
				continue;
			}
			ProcessId target = this.round.target(task, leaver, this.round.mayTakeWork);
			this.round.loads(task).add(target, task);
			this.round.rules.gaveWorkTo(target, false);
			if (this.round.isStateful(task)) {
				targets.put(task, target);
				this.round.learnerAt.put(task, target);
				this.round.active.put(task, leaver);
			}
			else {
				this.round.moveNow(task, Optional.of(leaver), target, "leaving member, stateless");
			}
		}
		boolean allReady = targets.entrySet().stream().allMatch((t) -> this.round.caughtUp(t.getValue(), t.getKey()));
		if (this.round.handOversHeld) {
			targets.forEach((task, target) -> this.round.waitFor(task, leaver, target,
					WaitReason.LEAVE_REQUESTS_OUT_OF_DATE));
			return;
		}
		if (this.round.unknownOffsets) {
			targets.forEach((task, target) -> this.round.waitFor(task, leaver, target, WaitReason.UNKNOWN_OFFSETS));
			return;
		}
		if (allReady) {
			this.round.handOver.put(leaver, HandOverReason.LEARNERS_READY);
			return;
		}
		targets.forEach((task, target) -> {
			boolean ready = this.round.caughtUp(target, task);
			if (ready && this.round.settings.learnerRebalance() == LearnerRebalance.EAGER) {
				this.round.learnerAt.remove(task);
				this.round.moveNow(task, Optional.of(leaver), target, "leaving member, learner ready");
			}
			else {
				this.round.waitFor(task, leaver, target,
						ready ? WaitReason.WAITING_FOR_OTHER_LEARNERS : WaitReason.LEARNER_NOT_READY);
			}
		});
	}

}
