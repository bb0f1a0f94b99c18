package io.github.incrementalrebalance.planner;

import java.util.HashSet;
import java.util.Set;

import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ProcessId;

/**
 * The rules that keep a task from coming back to the member it just left, all in one place.
 * <p>
 * <b>Why.</b> Kafka's input does not say where a task went in the previous round. In the round after a move the task
 * has no running owner, and both its new owner and its former owner look caught up (the former reports the checkpoint
 * it wrote when the task was revoked). The previous round's plan says where it went ({@link Group#lastPlan()}), and
 * the orphan goes there ({@link Orphans}); but a leader does not always know that plan (it took over before reading
 * it), and then the orphan goes to the caught-up member with the lower projected load. A move is therefore safe only
 * if its new owner is still the lighter of the two in that next round, whatever else this round does. Hence:
 * <ol>
 * <li>A task's place is decided once per round: no later step moves it again ({@link #decide}).</li>
 * <li>A member given work this round (an orphan, a leaving member's task, a task off a member the policy excludes)
 * gives none away, for balance or for cost: what it gave would come back as an orphan next round, judged against a
 * load without what it took ({@link #tookWork}).</li>
 * <li>Within one balancing pass a member that gives takes none, and one that takes gives none
 * ({@link Balancing}); a member with a learner of the previous plan counts as taking, so that its learner is not
 * re-placed on a colder member.</li>
 * <li>A member balancing gave a task to gives none away by cost; one balancing took a task from takes none by cost
 * ({@link #mayGiveByCost}, {@link #mayTakeByCost}).</li>
 * <li>A balance move is kept only if its new owner stays strictly lighter than its giver would be with the task back,
 * both without the leaving members' tasks, as the orphan step compares them ({@link Orphans}), and with them wherever
 * they may land ({@link Balancing}).</li>
 * <li>A warm orphan (the second round of a move) moves again by cost only where it is strictly cheaper, never as
 * another task's partner in an exchange ({@link CostPlacement}).</li>
 * </ol>
 * With racks, rule 6 cannot tell a move balancing had to make out of a task's rack from one to undo: without the
 * previous plan, placing by cost may bring such a task back. With it, an orphan placed where that plan sent it is
 * decided (rule 1) and no step of the round moves it.
 */
final class HandBackRules {

	private final Set<TaskId> decided = new HashSet<>();

	private final Set<ProcessId> tookWork = new HashSet<>();

	/**
	 * Members given an orphan: they run it from the next round on and may give work then, so balancing they hold up
	 * is retried at once (a leaving member's learners, in contrast, wait for a while).
	 */
	private final Set<ProcessId> tookOrphans = new HashSet<>();

	private final Set<ProcessId> balancedOnto = new HashSet<>();

	private final Set<ProcessId> balancedFrom = new HashSet<>();

	void decide(TaskId task) {
		this.decided.add(task);
	}

	/**
	 * Take back a decision: the move was undone and the task may be placed again.
	 */
	void undecide(TaskId task) {
		this.decided.remove(task);
	}

	boolean isDecided(TaskId task) {
		return this.decided.contains(task);
	}

	/**
	 * A member was given a task this round, an orphan or another's.
	 */
	void gaveWorkTo(ProcessId member, boolean orphan) {
		this.tookWork.add(member);
		if (orphan) {
			this.tookOrphans.add(member);
		}
	}

	void balanced(ProcessId from, ProcessId to) {
		this.balancedFrom.add(from);
		this.balancedOnto.add(to);
	}

	boolean tookWork(ProcessId member) {
		return this.tookWork.contains(member);
	}

	boolean tookOrphans(ProcessId member) {
		return this.tookOrphans.contains(member);
	}

	/**
	 * The members that took work this round: balancing takes nothing from them.
	 */
	Set<ProcessId> membersThatTookWork() {
		return new HashSet<>(this.tookWork);
	}

	boolean mayGiveByCost(ProcessId member) {
		return !this.tookWork.contains(member) && !this.balancedOnto.contains(member);
	}

	boolean mayTakeByCost(ProcessId member) {
		return !this.balancedFrom.contains(member);
	}

}
