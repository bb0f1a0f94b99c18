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
		boolean spreadAsked = this.round.settings.balanceSubtopologies();
		if (nothingToGain && loads.withinTolerance() && !spreadAsked) {
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
		// with balance_subtopology an orphan is not spread onto a member at its sub-topology's cap: after an exchange
		// made for the spread, that would hand one of the pair back
		CostOptimizer.Spread piling = spreadAsked ? spread(stateful, candidates, index, tasks, most) : null;
		spreadPiledOrphans(tasks, owner, count, most, costs, candidates, loads, piling);
		int[] low = new int[count.length];
		int[] high = new int[count.length];
		for (int i = 0; i < count.length; i++) {
			low[i] = Math.min(count[i], fewest[i]);
			high[i] = Math.max(count[i], most[i]);
		}
		CostOptimizer.Spread spread = spreadAsked ? spread(stateful, candidates, index, tasks, high) : null;
		if (nothingToGain && loads.withinTolerance()
				&& (spread == null || spread(stateful, candidates, index, tasks, count).aboveCaps() == 0)) {
			return;
		}
		// a warm orphan is the second round of a move: it moves again only where it is cheaper, never as another
		// task's partner, which could hand it back to the member it just left; with balance_subtopology it may also
		// leave a member it puts above its cap (where the orphan step put it by load), as placing by cost sees fit
		CostOptimizer.Costs costsOfMoves = (task, member) -> {
			long cost = costs.cost(task, member);
			if (!warmOnly[task] || member == owner[task] || cost == CostOptimizer.NOT_ALLOWED) {
				return cost;
			}
			if (spread != null && spread.aboveCap(owner[task], task)) {
				return cost;
			}
			return (this.round.policy.cost(tasks[task], candidates.get(member)) < this.round.policy.cost(tasks[task],
					candidates.get(owner[task]))) ? cost : CostOptimizer.NOT_ALLOWED;
		};
		int maxCycles = 4 * tasks.length + candidates.size();
		int[] placed = new CostOptimizer(owner, count, low, high, capacity, costsOfMoves, spread)
			.optimize(maxCycles);
		boolean balanced = loads.withinTolerance();
		for (int tries = 0; tries < count.length && balanced; tries++) {
			Loads after = after(loads, candidates, tasks, owner, placed, (task) -> true);
			if (after.withinTolerance()) {
				break;
			}
			// the cheapest placement within the shares leaves the bucket outside the factor: a member that ends the
			// least loaded loses no task, and look again; only when none does, one that ends the most loaded gains
			// none. Among one-thread members that side is every member taking a task: pinned first, it sent a learner
			// back and forth between two as cheap members, a round each time
			double max = candidates.stream().mapToDouble((member) -> after.load(member.processId())).max().orElse(0);
			double min = candidates.stream().mapToDouble((member) -> after.load(member.processId())).min().orElse(0);
			int[] ends = countsAfter(count, owner, placed);
			boolean pinned = false;
			for (int i = 0; i < count.length; i++) {
				if (after.load(candidates.get(i).processId()) <= min + 1e-9 && ends[i] < count[i]) {
					low[i] = count[i];
					pinned = true;
				}
			}
			boolean leastPinned = pinned;
			for (int i = 0; i < count.length && !leastPinned; i++) {
				if (after.load(candidates.get(i).processId()) >= max - 1e-9 && ends[i] > count[i]) {
					high[i] = count[i];
					pinned = true;
				}
			}
			if (!pinned) {
				break;
			}
			placed = new CostOptimizer(owner, count, low, high, capacity, costsOfMoves, spread).optimize(maxCycles);
		}
		if (spread != null) {
			// Kafka caps a member's share of a sub-topology by the tasks it ends with: with the counts this placement
			// ends with fixed, bring it within those caps at the least cost, as Kafka's optimization would
			int[] ends = countsAfter(count, owner, placed);
			CostOptimizer.Spread atEnd = spread(stateful, candidates, index, tasks, ends).moved(owner, placed,
					(task) -> true);
			placed = new CostOptimizer(placed, ends, ends, ends, capacity, costsOfMoves, atEnd).optimize(maxCycles);
		}
		// a placement outside the factor would be undone by balancing next round, and that round's orphans placed
		// by cost again: nothing moves by cost until balancing has brought the bucket within it
		if (!after(loads, candidates, tasks, owner, placed, (task) -> true).withinTolerance()) {
			placed = owner.clone();
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
		// the moves made now must leave the bucket within the factor while the learners of the others warm up, and
		// with balance_subtopology no further above the caps: else balancing, or placing by cost, would undo them in
		// the next round
		IntPredicate madeNow = (task) -> !warmUp.containsKey(tasks[task].id());
		boolean moveNow = warmUp.isEmpty() || ((!loads.withinTolerance()
				|| after(loads, candidates, tasks, owner, placed, madeNow).withinTolerance())
				&& (spread == null || spread.moved(owner, placed, madeNow).aboveCaps() <= spread.aboveCaps()));
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
				// its learner is ready: keep it, warm, while the moves it waits for warm up (it takes no warm-up slot)
				this.round.learnerAt.put(task, to);
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
	 * Kafka's {@code balance_subtopology}: no member should hold more of a sub-topology's tasks than its share of the
	 * bucket's tasks of that sub-topology's tasks, rounded up, as Kafka caps them.
	 * @param tasksOf per member, the tasks of the bucket its share is taken of
	 * @return the caps and the members' counts now, or null when the bucket holds one sub-topology
	 */
	private CostOptimizer.Spread spread(boolean stateful, List<GroupMember> candidates, Map<ProcessId, Integer> index,
			GroupTask[] tasks, int[] tasksOf) {
		Map<Integer, Integer> groupOfSubtopology = new TreeMap<>();
		List<Map.Entry<TaskId, ProcessId>> bucket = this.round.active.entrySet().stream()
			.filter((entry) -> this.round.isStateful(entry.getKey()) == stateful && index.containsKey(entry.getValue()))
			.toList();
		bucket.forEach((entry) -> groupOfSubtopology.putIfAbsent(entry.getKey().subtopology(), groupOfSubtopology.size()));
		if (groupOfSubtopology.size() < 2) {
			// one sub-topology: its cap is each member's whole share, nothing to spread
			return null;
		}
		int[][] count = new int[candidates.size()][groupOfSubtopology.size()];
		for (Map.Entry<TaskId, ProcessId> entry : bucket) {
			count[index.get(entry.getValue())][groupOfSubtopology.get(entry.getKey().subtopology())]++;
		}
		int[][] cap = new int[candidates.size()][groupOfSubtopology.size()];
		for (int member = 0; member < candidates.size(); member++) {
			for (Map.Entry<Integer, Integer> group : groupOfSubtopology.entrySet()) {
				cap[member][group.getValue()] = this.round.subtopologyCap(tasksOf[member], group.getKey(), stateful);
			}
		}
		int[] groupOf = new int[tasks.length];
		for (int task = 0; task < tasks.length; task++) {
			groupOf[task] = groupOfSubtopology.get(tasks[task].subtopology());
		}
		return new CostOptimizer.Spread(groupOf, count, cap);
	}

	private static int[] countsAfter(int[] count, int[] owner, int[] placed) {
		int[] after = count.clone();
		for (int task = 0; task < placed.length; task++) {
			after[owner[task]]--;
			after[placed[task]]++;
		}
		return after;
	}

	/**
	 * Whether a bucket within the balancing factor stays within it when a task moves; one outside it may move.
	 */
	private static boolean keepsTolerance(Loads loads, TaskId task, ProcessId from, ProcessId to) {
		if (!loads.withinTolerance()) {
			return true;
		}
		loads.move(task, from, to);
		boolean within = loads.withinTolerance();
		loads.move(task, to, from);
		return within;
	}

	/**
	 * Orphans caught up on several members can pile up on one of them: the orphan step places them all against
	 * the loads before any lands, so that none is pushed back onto its former owner, and among members as loaded
	 * it prefers the cheaper. That happens in the round after two tasks swapped places for a lower cost where only
	 * one of them is cheaper at its new owner, and when several members are as cheap for many orphans. Spread such
	 * orphans from members above their share (rounded up) to members below it: where they cost no more and the
	 * bucket stays within the balancing factor, the cheapest first, and while the bucket is outside the factor also
	 * from any member the move makes lighter by weight per thread (a member within its count may be the heavier one,
	 * and balancing would move one back next round); then, while it is outside the factor, where they cost least more.
	 * With {@code balance_subtopology} an orphan above its sub-topology's cap is piled too (both halves of a swap made
	 * for the spread land on the lighter member), and none goes to a member at its cap.
	 */
	private void spreadPiledOrphans(GroupTask[] tasks, int[] owner, int[] count, int[] most,
			CostOptimizer.Costs costs, List<GroupMember> candidates, Loads loads, CostOptimizer.Spread piling) {
		while (spreadOne(tasks, owner, count, most, costs, candidates, loads, piling, false)) {
			// each pass moves one orphan
		}
		while (!loads.withinTolerance()
				&& spreadOne(tasks, owner, count, most, costs, candidates, loads, piling, true)) {
			// each pass moves one orphan
		}
	}

	private boolean spreadOne(GroupTask[] tasks, int[] owner, int[] count, int[] most, CostOptimizer.Costs costs,
			List<GroupMember> candidates, Loads loads, CostOptimizer.Spread piling, boolean dearer) {
		int bestTask = -1;
		int bestMember = -1;
		long bestDelta = Long.MAX_VALUE;
		// within its count a member may still be the heavier by weight per thread, which balancing would mend by
		// moving one of these orphans next round: move it now where it costs no more and makes the bucket more even
		boolean uneven = !dearer && !loads.withinTolerance();
		for (int task = 0; task < tasks.length; task++) {
			boolean piled = count[owner[task]] > most[owner[task]]
					|| (piling != null && piling.aboveCap(owner[task], task));
			if (!this.round.orphans.contains(tasks[task].id()) || (!piled && !uneven)) {
				continue;
			}
			long here = costs.cost(task, owner[task]);
			ProcessId from = candidates.get(owner[task]).processId();
			for (int member = 0; member < count.length; member++) {
				if (!piled && !loads.improves(from, candidates.get(member).processId(), tasks[task].id())) {
					continue;
				}
				if (piling != null && piling.count()[member][piling.groupOf()[task]] >= piling.cap()[member][piling
					.groupOf()[task]]) {
					continue;
				}
				long there = (count[member] < most[member]) ? costs.cost(task, member) : CostOptimizer.NOT_ALLOWED;
				if (there != CostOptimizer.NOT_ALLOWED && (dearer || there <= here) && there - here < bestDelta
						&& (dearer || keepsTolerance(loads, tasks[task].id(), from, candidates.get(member).processId()))) {
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
		if (piling != null) {
			piling.count()[owner[bestTask]][piling.groupOf()[bestTask]]--;
			piling.count()[bestMember][piling.groupOf()[bestTask]]++;
		}
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
