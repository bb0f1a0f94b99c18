package io.github.incrementalrebalance.planner;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ProcessId;

/**
 * The orphan step: tasks nobody runs this round (a member crashed or left, or the second round of a move) go where
 * the previous round sent them, else to the most caught-up member: a ready learner first, else the member holding the
 * most state, else the least loaded.
 * <p>
 * An orphan is typically the second round of a move: Kafka revokes a task from its owner in one round and gives it to
 * its new owner in the next. When the previous round's plan is known, the orphan goes to the member that plan gave it,
 * if that member may still take it (it stays, the policy lets it run the task, it is caught up), and no later step of
 * the round moves it: the move the previous round decided is completed, not decided again on other loads.
 * <p>
 * Without that plan (a new leader that has not read it yet), a stateful orphan that a member holds caught up looks
 * the same on its former owner (the checkpoint of the revocation) as on its new owner. All such orphans go to a
 * caught-up member, placed against the same loads (those before any of them lands, and before the leaving members'
 * tasks are counted where their learners are: a leader without the plan may place a learner elsewhere than the last
 * one did), so neither the order they are placed in nor a drain can push one onto its former owner (see
 * {@link HandBackRules}). Orphans nobody holds (a new application's tasks,
 * whose empty changelogs make every member look caught up) are spread one by one over the least loaded members.
 */
final class Orphans {

	private final RoundState round;

	Orphans(RoundState round) {
		this.round = round;
	}

	void apply() {
		List<TaskId> orphans = this.round.group.tasks().keySet().stream()
			.filter((task) -> !this.round.runningOwner.containsKey(task))
			.toList();
		if (!this.round.mixedModes) {
			for (TaskId task : orphans) {
				ProcessId planned = this.round.plannedOwner.get(task);
				if (planned != null && mayTake(planned, task)) {
					place(task, planned);
					this.round.rules.decide(task);
				}
			}
			orphans = orphans.stream().filter((task) -> !this.round.rules.isDecided(task)).toList();
		}
		Map<TaskId, ProcessId> warm = new TreeMap<>();
		if (!this.round.mixedModes) {
			Loads beforeDrains = this.round.statefulLoadsWithoutDrains();
			for (TaskId task : orphans) {
				boolean heldWarm = this.round.mayTakeWork.stream()
					.anyMatch((member) -> member.holds(task) && this.round.caughtUp(member.processId(), task));
				if (this.round.isStateful(task) && heldWarm) {
					warm.put(task, this.round.target(task, null, this.round.mayTakeWork, beforeDrains));
				}
			}
		}
		warm.forEach(this::place);
		for (TaskId task : orphans) {
			if (!warm.containsKey(task)) {
				place(task, this.round.mixedModes ? this.round.leastLoaded(task, this.round.mayTakeWork) : target(task));
			}
		}
	}

	private boolean mayTake(ProcessId member, TaskId task) {
		return this.round.mayTakeWork(member) && this.round.caughtUp(member, task)
				&& (!this.round.policyApplies || this.round.mayRun(this.round.group.tasks().get(task), member));
	}

	private void place(TaskId task, ProcessId target) {
		this.round.loads(task).add(target, task);
		this.round.rules.gaveWorkTo(target, true);
		this.round.orphans.add(task);
		this.round.moveNow(task, Optional.empty(), target, "no running owner");
	}

	private ProcessId target(TaskId task) {
		List<GroupMember> caughtUp = this.round.mayTakeWork.stream()
			.filter((m) -> this.round.caughtUp(m.processId(), task))
			.toList();
		if (!caughtUp.isEmpty() || !this.round.isStateful(task)) {
			return this.round.target(task, null, this.round.mayTakeWork);
		}
		Loads loads = this.round.loads(task);
		return this.round.allowed(task, this.round.mayTakeWork).stream()
			.filter((member) -> member.holds(task))
			.min(Comparator.comparingLong((GroupMember member) -> member.lag(task))
				.thenComparingDouble((member) -> loads.loadWith(member.processId(), task))
				.thenComparing(GroupMember::startedAt, Comparator.reverseOrder())
				.thenComparing(GroupMember::processId))
			.map(GroupMember::processId)
			.orElseGet(() -> this.round.leastLoaded(task, this.round.mayTakeWork));
	}

}
