package io.github.incrementalrebalance.planner;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ProcessId;

/**
 * The balance step, per bucket (stateful or stateless tasks): take tasks from the most loaded member until the bucket
 * is within the balancing factor. A stateful task moves now only to a caught-up member; otherwise it stays being
 * learned while a learner warms up, at most {@code max.warmup.replicas} of them at a time. Tasks with a warming learner
 * are taken first, so the same pick is made round after round, by any leader. Rules 3 and 5 of {@link HandBackRules}
 * are applied here.
 */
final class Balancing {

	private final RoundState round;

	Balancing(RoundState round) {
		this.round = round;
	}

	void apply(boolean stateful) {
		Loads loads = this.round.loads(stateful);
		List<BalanceMove> chosen = new ArrayList<>();
		Set<ProcessId> givers = new HashSet<>();
		Set<ProcessId> takers = this.round.rules.membersThatTookWork();
		if (stateful) {
			// a member with a learner takes its task once the learner is ready: were it to give now, the learner
			// would have to move to a colder member (a member that gives takes none)
			takers.addAll(this.round.membersWithLearners());
		}
		while (!loads.withinTolerance()) {
			Optional<BalanceMove> pick = warmestMove(stateful, loads, givers, takers)
				.or(() -> loads.byLoadDescending().stream()
					.filter((from) -> !takers.contains(from))
					.flatMap((from) -> movableTasks(from, stateful, loads, givers).stream()
						.map((task) -> target(task, from, loads, givers).map((to) -> new BalanceMove(task, from, to)))
						.flatMap(Optional::stream))
					.findFirst());
			if (pick.isEmpty()) {
				this.round.balanceDeferred |= loads.byLoadDescending().stream()
					.filter(this.round.rules::tookOrphans)
					.anyMatch((from) -> movableTasks(from, stateful, loads, givers).stream()
						.anyMatch((task) -> target(task, from, loads, givers).isPresent()));
				break;
			}
			BalanceMove move = pick.get();
			givers.add(move.from());
			takers.add(move.to());
			this.round.rules.balanced(move.from(), move.to());
			loads.move(move.task(), move.from(), move.to());
			this.round.rules.decide(move.task());
			chosen.add(move);
		}
		keepOnlyMovesNeverHandedBack(chosen, loads, stateful);
		for (BalanceMove move : chosen) {
			TaskId task = move.task();
			if (!stateful || this.round.caughtUp(move.to(), task)) {
				this.round.moveNow(task, Optional.of(move.from()), move.to(),
						stateful ? "balance, learner ready" : "balance");
			}
			else {
				this.round.learnOrWait(task, move.from(), move.to());
			}
		}
	}

	/**
	 * Whether a move's new owner stays strictly lighter than its giver would be with the task back, whoever leads the
	 * next round: as its orphan step compares them, without the leaving members' tasks (their weight per member in
	 * {@code drained}), whose learners a leader without this round's plan may place elsewhere; and with them, even if
	 * the next round lands them differently (their learners are caught up on several members and the least loaded of
	 * those gets each, so count every such task on the taker and none on the giver), as the next round's balancing
	 * weighs them.
	 */
	private boolean staysLighter(BalanceMove move, Loads loads, Map<ProcessId, Long> drained) {
		if (!loads.staysLighter(move.to(), -drained.getOrDefault(move.to(), 0L), move.from(), move.task(),
				drained.getOrDefault(move.from(), 0L))) {
			return false;
		}
		long mayLandOnTaker = 0;
		long mayLeaveGiver = 0;
		// leaving members' learners are all stateful: they land in the stateful bucket only
		boolean drainsLandHere = this.round.isStateful(move.task());
		for (Map.Entry<TaskId, ProcessId> learner : this.round.learnerAt.entrySet()) {
			TaskId task = learner.getKey();
			ProcessId owner = this.round.active.get(task);
			if (!drainsLandHere || owner == null || !this.round.leaving.containsKey(owner)) {
				continue;
			}
			if (this.round.caughtUp(move.to(), task) && !learner.getValue().equals(move.to())) {
				mayLandOnTaker += loads.weight(task);
			}
			if (learner.getValue().equals(move.from()) && this.round.mayTakeWork.stream()
				.anyMatch((m) -> !m.processId().equals(move.from()) && this.round.caughtUp(m.processId(), task))) {
				mayLeaveGiver += loads.weight(task);
			}
		}
		return loads.staysLighter(move.to(), mayLandOnTaker, move.from(), move.task(), mayLeaveGiver);
	}

	/**
	 * Rule 5 of {@link HandBackRules}: keep only moves whose new owner will still be strictly lighter in the next
	 * round, with every move of this round done ({@code load(to) < load(from) + the task}); undo the latest moves
	 * until that holds. The next round takes up what is undone.
	 */
	private void keepOnlyMovesNeverHandedBack(List<BalanceMove> chosen, Loads loads, boolean stateful) {
		// leaving members' tasks are all stateful: they weigh in the stateful bucket only
		Map<ProcessId, Long> drained = stateful ? this.round.drainedWeights() : Map.of();
		while (!chosen.isEmpty() && chosen.stream().anyMatch((move) -> !staysLighter(move, loads, drained))) {
			BalanceMove undone = chosen.remove(chosen.size() - 1);
			loads.move(undone.task(), undone.to(), undone.from());
			this.round.rules.undecide(undone.task());
		}
	}

	/**
	 * The move of an above-average member's task onto a lighter member that already holds state of it, the most
	 * caught-up first: a learner placed in an earlier round is picked again, whichever member happens to be the most
	 * loaded now.
	 */
	private Optional<BalanceMove> warmestMove(boolean stateful, Loads loads, Set<ProcessId> givers,
			Set<ProcessId> takers) {
		if (!stateful) {
			return Optional.empty();
		}
		double mean = loads.meanLoad();
		// with balance_subtopology a move that keeps its target within its cap of the sub-topology first: another
		// would be mended by placing by cost, through an exchange
		Map<BalanceMove, Boolean> overCap = new HashMap<>();
		Comparator<BalanceMove> warmestFirst = Comparator
			.comparing((BalanceMove move) -> overCap.computeIfAbsent(move,
					(m) -> this.round.overCapWith(m.task()).test(this.round.members.get(m.to()))))
			.thenComparingLong((BalanceMove move) -> this.round.members.get(move.to()).lag(move.task()))
			.thenComparing(Comparator.comparingDouble((BalanceMove move) -> loads.load(move.from())).reversed())
			.thenComparing(BalanceMove::task);
		return this.round.active.entrySet().stream()
			.filter((entry) -> this.round.isStateful(entry.getKey()) && this.round.mayTakeWork(entry.getValue())
					&& !takers.contains(entry.getValue())
					&& (loads.load(entry.getValue()) > mean || caughtUpElsewhere(entry.getKey(), entry.getValue())))
			.filter((entry) -> entry.getValue().equals(this.round.runningOwner.get(entry.getKey()))
					&& !this.round.rules.isDecided(entry.getKey()))
			.filter((entry) -> this.round.mayTakeWork.stream()
				.anyMatch((member) -> member.holds(entry.getKey()) && !givers.contains(member.processId())
						&& !member.processId().equals(entry.getValue())
						&& loads.improves(entry.getValue(), member.processId(), entry.getKey())))
			.map((entry) -> target(entry.getKey(), entry.getValue(), loads, givers)
				.map((to) -> new BalanceMove(entry.getKey(), entry.getValue(), to)))
			.flatMap(Optional::stream)
			.filter((move) -> this.round.members.get(move.to()).holds(move.task()))
			.filter((move) -> !this.round.policyApplies
					|| this.round.costAt(move.task(), move.to()) <= this.round.costAt(move.task(), move.from()))
			.min(warmestFirst);
	}

	/**
	 * Whether another member that holds a task and may take work is caught up on it: a ready learner, which balancing
	 * moves the task to before it places another learner, even off a member below the mean. Only holders: this step
	 * moves a task to a member holding it, and they are a few per task, not the group.
	 */
	private boolean caughtUpElsewhere(TaskId task, ProcessId owner) {
		return this.round.reportedBy.getOrDefault(task, List.of()).stream()
			.anyMatch((member) -> !member.processId().equals(owner) && member.holds(task)
					&& this.round.mayTakeWork(member.processId()) && this.round.caughtUp(member.processId(), task));
	}

	/**
	 * The tasks balancing may take from a member, those that cost no more at a lighter member first (when the policy
	 * has costs): a balance move that costs more would be undone by cost in the round after it, when the task is
	 * caught up at both ends. Then those a lighter member holds warmest.
	 */
	private List<TaskId> movableTasks(ProcessId from, boolean stateful, Loads loads, Set<ProcessId> givers) {
		Comparator<TaskId> cheapestFirst = this.round.policyApplies
				? Comparator.comparingLong((TaskId task) -> cheapestDelta(task, from, loads, givers))
				: Comparator.comparingLong((TaskId task) -> 0);
		return this.round.active.entrySet().stream()
			.filter((entry) -> entry.getValue().equals(from) && this.round.isStateful(entry.getKey()) == stateful)
			.map(Map.Entry::getKey)
			.filter((task) -> from.equals(this.round.runningOwner.get(task)) && !this.round.rules.isDecided(task))
			.sorted(cheapestFirst.thenComparingLong((TaskId task) -> bestHolderLag(task, from))
				.thenComparing(Comparator.naturalOrder()))
			.toList();
	}

	private long cheapestDelta(TaskId task, ProcessId from, Loads loads, Set<ProcessId> givers) {
		long here = this.round.costAt(task, from);
		return this.round.mayTakeWork.stream()
			.filter((member) -> !member.processId().equals(from) && !givers.contains(member.processId())
					&& loads.improves(from, member.processId(), task)
					&& this.round.mayRun(this.round.group.tasks().get(task), member.processId()))
			.mapToLong((member) -> this.round.costAt(task, member.processId()) - here)
			.min()
			.orElse(Long.MAX_VALUE);
	}

	private long bestHolderLag(TaskId task, ProcessId owner) {
		if (!this.round.isStateful(task)) {
			return Long.MAX_VALUE;
		}
		return this.round.mayTakeWork.stream()
			.filter((member) -> !member.processId().equals(owner) && member.holds(task))
			.mapToLong((member) -> member.lag(task))
			.filter((lag) -> lag >= 0)
			.min()
			.orElse(Long.MAX_VALUE);
	}

	/**
	 * A lighter member that gives no task away this round (rule 3 of {@link HandBackRules}); with
	 * {@code balance_subtopology} one that stays within its cap of the task's sub-topology, if any does.
	 */
	private Optional<ProcessId> target(TaskId task, ProcessId from, Loads loads, Set<ProcessId> givers) {
		GroupTask groupTask = this.round.policyApplies ? this.round.group.tasks().get(task) : null;
		List<GroupMember> lighter = this.round.mayTakeWork.stream()
			.filter((member) -> !member.processId().equals(from) && !givers.contains(member.processId())
					&& loads.improves(from, member.processId(), task)
					&& (groupTask == null || this.round.policy.mayRun(groupTask, member)))
			.toList();
		Predicate<GroupMember> overCap = this.round.overCapWith(task);
		List<GroupMember> withinCap = lighter.stream().filter(overCap.negate()).toList();
		if (!withinCap.isEmpty()) {
			lighter = withinCap;
		}
		return lighter.isEmpty() ? Optional.empty() : Optional.of(this.round.target(task, from, lighter));
	}

	private record BalanceMove(TaskId task, ProcessId from, ProcessId to) {
	}

}
