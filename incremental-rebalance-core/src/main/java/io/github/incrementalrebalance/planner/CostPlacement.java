package io.github.incrementalrebalance.planner;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.IntPredicate;

import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ProcessId;

/**
 * The cost step, per bucket, after balancing: places the tasks where the policy's costs are lowest, with a min-cost
 * flow over the members ({@link CostOptimizer}). Rules 2, 4 and 6 of {@link HandBackRules} decide which tasks may move.
 */
final class CostPlacement {

	private final RoundState round;

	CostPlacement(RoundState round) {
		this.round = round;
	}

	/**
	 * Move tasks to where the policy's costs are lowest (Kafka's rack-aware optimization: the sum of the costs, a
	 * move counting {@code moveCost}), each member ending with a task count between its balanced share and what it
	 * carries now, so the bucket stays as balanced as balancing left it. Only tasks nothing else decided this round
	 * move: orphans, which may go to any caught-up member (any member when none is), and tasks running on a member
	 * that took no work this round (rules 2 and 4 of {@link HandBackRules}). A move is made as every other: a
	 * stateful task moves now only to a caught-up member, else a learner warms up there first (within
	 * {@code max.warmup.replicas}), and the moves it makes room for wait with it unless the bucket stays within the
	 * balancing factor without it.
	 */
	void apply(boolean stateful) {
		if (this.round.noOtherMember || !this.round.policyApplies) {
			return;
		}
		Loads loads = this.round.loads(stateful);
		List<TaskId> movable = this.round.active.entrySet().stream()
			.filter((entry) -> this.round.isStateful(entry.getKey()) == stateful
					&& this.round.mayTakeWork(entry.getValue()) && !this.round.learnerAt.containsKey(entry.getKey())
					&& !this.round.rules.isDecided(entry.getKey())
					&& (this.round.orphans.contains(entry.getKey())
							|| (entry.getValue().equals(this.round.runningOwner.get(entry.getKey()))
									&& this.round.rules.mayGiveByCost(entry.getValue()))))
			.map(Map.Entry::getKey)
			.toList();
		boolean nothingToGain = movable.stream().allMatch((task) -> {
			GroupMember owner = this.round.members.get(this.round.active.get(task));
			GroupTask groupTask = this.round.group.tasks().get(task);
			return this.round.policy.mayRun(groupTask, owner) && this.round.policy.cost(groupTask, owner) == 0;
		});
		if (nothingToGain && loads.withinTolerance()) {
			return;
		}
		List<GroupMember> candidates = this.round.mayTakeWork;
		Map<ProcessId, Integer> index = new HashMap<>();
		for (int i = 0; i < candidates.size(); i++) {
			index.put(candidates.get(i).processId(), i);
		}
		int[] owner = movable.stream().mapToInt((task) -> index.get(this.round.active.get(task))).toArray();
		int[] count = candidates.stream().mapToInt((member) -> loads.count(member.processId())).toArray();
		long total = 0;
		long threads = 0;
		for (int i = 0; i < count.length; i++) {
			total += count[i];
			threads += candidates.get(i).capacity();
		}
		int[] fewest = new int[count.length];
		int[] most = new int[count.length];
		for (int i = 0; i < count.length; i++) {
			double share = total * (double) candidates.get(i).capacity() / threads;
			fewest[i] = (int) Math.floor(share);
			most[i] = (int) Math.ceil(share);
		}
		GroupTask[] tasks = movable.stream().map(this.round.group.tasks()::get).toArray(GroupTask[]::new);
		boolean[] warmOnly = new boolean[tasks.length];
		for (int i = 0; i < tasks.length; i++) {
			TaskId task = tasks[i].id();
			warmOnly[i] = stateful && this.round.orphans.contains(task)
					&& candidates.stream().anyMatch((member) -> this.round.caughtUp(member.processId(), task));
		}
		int[] capacity = candidates.stream().mapToInt(GroupMember::capacity).toArray();
		boolean[] orphan = new boolean[tasks.length];
		for (int i = 0; i < tasks.length; i++) {
			orphan[i] = this.round.orphans.contains(tasks[i].id());
		}
		// moving a running task costs a pause (and for a stateful one a warm-up); an orphan runs nowhere yet
		long moveCost = Math.max(1, this.round.settings.moveCost());
		CostOptimizer.Costs costs = (task, member) -> {
			GroupMember candidate = candidates.get(member);
			if (!this.round.policy.mayRun(tasks[task], candidate)
					|| (warmOnly[task] && !this.round.caughtUp(candidate.processId(), tasks[task].id()))
					|| (member != owner[task] && !this.round.rules.mayTakeByCost(candidate.processId()))) {
				return CostOptimizer.NOT_ALLOWED;
			}
			// doubled, so that a member already holding state of the task wins a tie by one: a learner keeps its
			// task round after round while the costs do not change
			long cost = 2 * this.round.policy.cost(tasks[task], candidate);
			if (member == owner[task] || orphan[task]) {
				return cost;
			}
			return cost + 2 * moveCost - (candidate.holds(tasks[task].id()) ? 1 : 0);
		};
		spreadPiledOrphans(tasks, owner, count, most, costs, candidates, loads);
		// a warm orphan is the second round of a move: it moves again only where it is cheaper, never as another
		// task's partner, which could hand it back to the member it just left
		CostOptimizer.Costs costsOfMoves = (task, member) -> {
			long cost = costs.cost(task, member);
			if (warmOnly[task] && member != owner[task] && cost != CostOptimizer.NOT_ALLOWED
					&& this.round.policy.cost(tasks[task], candidates.get(member)) >= this.round.policy.cost(tasks[task],
							candidates.get(owner[task]))) {
				return CostOptimizer.NOT_ALLOWED;
			}
			return cost;
		};
		int[] low = new int[count.length];
		int[] high = new int[count.length];
		for (int i = 0; i < count.length; i++) {
			low[i] = Math.min(count[i], fewest[i]);
			high[i] = Math.max(count[i], most[i]);
		}
		int maxCycles = 4 * tasks.length + candidates.size();
		int[] placed = new CostOptimizer(owner, count, low, high, capacity, costsOfMoves).optimize(maxCycles);
		boolean balanced = loads.withinTolerance();
		for (int tries = 0; tries < count.length && balanced; tries++) {
			Loads after = after(loads, candidates, tasks, owner, placed, (task) -> true);
			if (after.withinTolerance()) {
				break;
			}
			// the cheapest placement within the shares leaves the bucket outside the factor: keep the counts of
			// the members that end the most and the least loaded, and look again
			double max = candidates.stream().mapToDouble((member) -> after.load(member.processId())).max().orElse(0);
			double min = candidates.stream().mapToDouble((member) -> after.load(member.processId())).min().orElse(0);
			for (int i = 0; i < count.length; i++) {
				double load = after.load(candidates.get(i).processId());
				if (load >= max - 1e-9 || load <= min + 1e-9) {
					low[i] = count[i];
					high[i] = count[i];
				}
			}
			placed = new CostOptimizer(owner, count, low, high, capacity, costsOfMoves).optimize(maxCycles);
		}
		Map<TaskId, ProcessId> orphansTo = new TreeMap<>();
		Map<TaskId, ProcessId> now = new TreeMap<>();
		Map<TaskId, ProcessId> warmUp = new TreeMap<>();
		for (int i = 0; i < tasks.length; i++) {
			if (placed[i] == owner[i]) {
				continue;
			}
			TaskId task = tasks[i].id();
			ProcessId to = candidates.get(placed[i]).processId();
			if (this.round.orphans.contains(task)) {
				orphansTo.put(task, to);
			}
			else if (!stateful || this.round.caughtUp(to, task)) {
				now.put(task, to);
			}
			else {
				warmUp.put(task, to);
			}
		}
		// the moves made now must leave the bucket within the factor while the learners of the others warm up:
		// else balancing would undo them in the next round
		boolean moveNow = warmUp.isEmpty() || !loads.withinTolerance()
				|| after(loads, candidates, tasks, owner, placed, (task) -> !warmUp.containsKey(tasks[task].id()))
					.withinTolerance();
		if (moveNow) {
			orphansTo.forEach((task, to) -> placeOrphanAgain(task, this.round.active.get(task), to, loads));
		}
		now.forEach((task, to) -> {
			ProcessId from = this.round.active.get(task);
			this.round.rules.decide(task);
			if (moveNow) {
				loads.move(task, from, to);
				this.round.moveNow(task, Optional.of(from), to, "lower cost");
			}
			else {
				this.round.waitFor(task, from, to, WaitReason.WAITING_FOR_OTHER_LEARNERS);
			}
		});
		for (int i = 0; i < tasks.length && !this.round.costDeferred; i++) {
			GroupTask task = tasks[i];
			if (warmOnly[i]) {
				long there = this.round.policy.cost(task, this.round.members.get(this.round.active.get(task.id())));
				this.round.costDeferred = candidates.stream()
					.anyMatch((member) -> this.round.policy.mayRun(task, member) && this.round.policy.cost(task, member) < there);
			}
		}
		warmUp.forEach((task, to) -> {
			ProcessId from = this.round.active.get(task);
			this.round.rules.decide(task);
			this.round.learnOrWait(task, from, to);
		});
	}

	/**
	 * Orphans caught up on several members can pile up on one of them: the orphan step places them all against
	 * the loads before any lands, so that none is pushed back onto its former owner, and among members as loaded
	 * it prefers the cheaper. That happens in the round after two tasks swapped places for a lower cost where only
	 * one of them is cheaper at its new owner, and when several members are as cheap for many orphans. Spread such
	 * orphans from members above their share (rounded up) to members below it: where they cost no more, the
	 * cheapest first; then, while the bucket is outside the balancing factor, where they cost least more.
	 */
	private void spreadPiledOrphans(GroupTask[] tasks, int[] owner, int[] count, int[] most,
			CostOptimizer.Costs costs, List<GroupMember> candidates, Loads loads) {
		while (spreadOne(tasks, owner, count, most, costs, candidates, loads, false)) {
			// each pass moves one orphan
		}
		while (!loads.withinTolerance()
				&& spreadOne(tasks, owner, count, most, costs, candidates, loads, true)) {
			// each pass moves one orphan
		}
	}

	private boolean spreadOne(GroupTask[] tasks, int[] owner, int[] count, int[] most, CostOptimizer.Costs costs,
			List<GroupMember> candidates, Loads loads, boolean dearer) {
		int bestTask = -1;
		int bestMember = -1;
		long bestDelta = Long.MAX_VALUE;
		for (int task = 0; task < tasks.length; task++) {
			if (!this.round.orphans.contains(tasks[task].id()) || count[owner[task]] <= most[owner[task]]) {
				continue;
			}
			long here = costs.cost(task, owner[task]);
			for (int member = 0; member < count.length; member++) {
				long there = (count[member] < most[member]) ? costs.cost(task, member) : CostOptimizer.NOT_ALLOWED;
				if (there != CostOptimizer.NOT_ALLOWED && (dearer || there <= here) && there - here < bestDelta) {
					bestDelta = there - here;
					bestTask = task;
					bestMember = member;
				}
			}
		}
		if (bestTask == -1) {
			return false;
		}
		placeOrphanAgain(tasks[bestTask].id(), candidates.get(owner[bestTask]).processId(),
				candidates.get(bestMember).processId(), loads);
		count[owner[bestTask]]--;
		count[bestMember]++;
		owner[bestTask] = bestMember;
		return true;
	}

	private void placeOrphanAgain(TaskId task, ProcessId from, ProcessId to, Loads loads) {
		loads.move(task, from, to);
		this.round.rules.gaveWorkTo(to, true);
		this.round.moves.removeIf((move) -> move.task().equals(task));
		this.round.moveNow(task, Optional.empty(), to, "no running owner, lowest cost");
	}

	/**
	 * The bucket's loads after the optimizer's moves that {@code made} accepts.
	 */
	private static Loads after(Loads loads, List<GroupMember> candidates, GroupTask[] tasks, int[] owner,
			int[] placed, IntPredicate made) {
		Loads after = loads.copy();
		for (int i = 0; i < owner.length; i++) {
			if (placed[i] != owner[i] && made.test(i)) {
				after.move(tasks[i].id(), candidates.get(owner[i]).processId(), candidates.get(placed[i]).processId());
			}
		}
		return after;
	}

}
