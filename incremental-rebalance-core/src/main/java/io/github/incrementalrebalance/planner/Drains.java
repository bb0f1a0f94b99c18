package io.github.incrementalrebalance.planner;

import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ProcessId;

/**
 * The drain step: every leaving member's stateful tasks get a learner elsewhere, its stateless tasks move at once, and
 * the member hands over now, moves its ready tasks one by one (eager) or waits for all of its learners (conservative).
 * A member, and the group, restore at most as many learners of drains at once as the {@link DrainRestoreCap} allows:
 * the most advanced of a leaving member's learners keep their place, the others wait for one, so that a large drain
 * restores in waves instead of all at once on the same disks and brokers. While the leave requests may be out of date,
 * nothing of a leaving member moves and none hands over: its learners warm up, and it keeps its tasks until the leader
 * reads the control topic again.
 */
final class Drains {

	private final RoundState round;

	/** Learners of drains placed this round that are not ready yet, by member. */
	private final Map<ProcessId, Integer> restoring = new HashMap<>();

	/** Learners of drains placed this round that are not ready yet, in the group. */
	private int restoringInGroup;

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
				this.round.drainedOnto.put(task, target);
				targets.put(task, target);
				// placed at once: where a learner goes steers the next task's target
				this.round.learnerAt.put(task, target);
				this.round.active.put(task, leaver);
			}
			else {
				this.round.moveNow(task, Optional.of(leaver), target, "leaving member, stateless");
			}
		}
		Map<TaskId, ProcessId> waitingForAPlace = placeLearners(targets);
		boolean allReady = waitingForAPlace.isEmpty()
				&& targets.entrySet().stream().allMatch((t) -> this.round.caughtUp(t.getValue(), t.getKey()));
		waitingForAPlace.forEach((task, target) -> {
			targets.remove(task);
			this.round.learnerAwaited.add(task);
			this.round.waitFor(task, leaver, target, WaitReason.DRAIN_RESTORE_CAP);
		});
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

	/**
	 * Keeps a learner for each task at its target, ready ones first, then those closest to ready, while the target and
	 * the group restore fewer than their caps; the others wait for a place.
	 * @return the tasks whose learner waits for a place, with their target
	 */
	private Map<TaskId, ProcessId> placeLearners(Map<TaskId, ProcessId> targets) {
		Map<TaskId, ProcessId> waiting = new TreeMap<>();
		targets.entrySet()
			.stream()
			.sorted(Comparator.comparingLong((Map.Entry<TaskId, ProcessId> t) -> lagAt(t.getValue(), t.getKey()))
				.thenComparing(Map.Entry::getKey))
			.forEach((t) -> {
				TaskId task = t.getKey();
				ProcessId target = t.getValue();
				if (this.round.caughtUp(target, task)) {
					return;
				}
				if (this.round.settings.drainRestoreCap()
					.admitsOneMore(this.restoring.getOrDefault(target, 0), this.restoringInGroup)) {
					this.restoring.merge(target, 1, Integer::sum);
					this.restoringInGroup++;
				}
				else {
					this.round.learnerAt.remove(task);
					waiting.put(task, target);
				}
			});
		return waiting;
	}

	/** A learner's lag at a member, an unknown one last. */
	private long lagAt(ProcessId member, TaskId task) {
		long lag = this.round.members.get(member).lag(task);
		return (lag < 0) ? Long.MAX_VALUE : lag;
	}

}
