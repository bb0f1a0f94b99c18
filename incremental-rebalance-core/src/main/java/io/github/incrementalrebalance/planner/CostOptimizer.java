package io.github.incrementalrebalance.planner;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntPredicate;

/**
 * Places tasks where the sum of their costs is lowest while each member keeps a number of tasks within a range: a
 * min-cost flow solved by cancelling negative cycles, as Kafka's rack-aware assignment does, but on a graph of
 * members instead of tasks and members. An edge from member {@code a} to member {@code b} is the cheapest move of one
 * of {@code a}'s tasks to {@code b}; a cycle of such edges moves one task along each and keeps every count, and a spare
 * node closes paths from a member above its lower bound to one below its upper bound. Any cheaper placement differs
 * from the current one by such cycles, so when none is negative the placement is optimal. Among placements of the
 * same cost the most even one wins: a path through the spare node also weighs the change of the sum of the members'
 * squared tasks per thread, compared only when the costs tie. Pure; indexes in, indexes out.
 * <p>
 * With a {@link Spread} (Kafka's {@code balance_subtopology}) each member has a node per group besides its own: moves
 * run between the group nodes of one group, so a member that gains and loses a task of the same group in one cycle
 * passes through its group node and its count of the group does not change; a member that gains a task of one group
 * and gives one of another passes from the first group node through its own node to the second, and those two edges
 * carry what the member's count of each group costs: {@link #OVER_CAP} for each task above the cap. Each edge prices
 * one more (or one fewer) task of a group, and a cycle passes a node once, so the cycle's weight is the change of the
 * total: the optimum places as few tasks above the caps as can be, then at the least cost, from any start.
 */
final class CostOptimizer {

	/** The cost of a placement the task may not have. */
	static final long NOT_ALLOWED = Long.MAX_VALUE;

	/** What staying on a member it may not run on costs: more than any placement it may have. */
	private static final long DISALLOWED_STAY = 1L << 40;

	/**
	 * What a task of a group above a member's cap costs: more than any cost saved elsewhere, less than a task on a
	 * member it may not run on.
	 */
	private static final long OVER_CAP = 1L << 30;

	private static final long NO_EDGE = Long.MAX_VALUE;

	private static final double EPSILON = 1e-9;

	private final int members;

	private final int[] owner;

	private final int[] count;

	private final int[] low;

	private final int[] high;

	private final int[] capacity;

	private final Costs costs;

	/** One without a spread. */
	private final int groups;

	private final Spread spread;

	/** Per member and group, the tasks it holds, those that may not move included; null without a spread. */
	private final int[][] groupCount;

	/** Per member and group ({@code member * groups + group}), the tasks that may move. */
	private final List<TreeSet<Integer>> tasksOf = new ArrayList<>();

	/** Per member and group, the cheapest move of one of its tasks of the group to each member. */
	private final long[][] weight;

	private final int[][] best;

	/**
	 * @param owner the member index of each task that may move
	 * @param count each member's tasks, those that may not move included
	 * @param low the fewest tasks each member may end with
	 * @param high the most tasks each member may end with
	 * @param capacity each member's threads
	 * @param costs what a task costs on a member, {@link #NOT_ALLOWED} where it may not go
	 * @param spread caps on the tasks of each group per member, or null for none
	 */
	CostOptimizer(int[] owner, int[] count, int[] low, int[] high, int[] capacity, Costs costs, Spread spread) {
		this.members = count.length;
		this.owner = owner.clone();
		this.count = count.clone();
		this.low = low;
		this.high = high;
		this.capacity = capacity;
		this.costs = costs;
		this.spread = spread;
		this.groups = (spread != null) ? spread.groups() : 1;
		this.groupCount = (spread != null) ? Arrays.stream(spread.count()).map(int[]::clone).toArray(int[][]::new)
				: null;
		for (int row = 0; row < this.members * this.groups; row++) {
			this.tasksOf.add(new TreeSet<>());
		}
		for (int task = 0; task < owner.length; task++) {
			this.tasksOf.get(row(owner[task], groupOf(task))).add(task);
		}
		this.weight = new long[this.members * this.groups][this.members];
		this.best = new int[this.members * this.groups][this.members];
		for (int row = 0; row < this.members * this.groups; row++) {
			computeEdges(row);
		}
	}

	/**
	 * Cancel negative cycles until none is left, or {@code maxCycles} were cancelled.
	 * @param maxCycles a bound on the work
	 * @return the member index of each task
	 */
	int[] optimize(int maxCycles) {
		for (int cycles = 0; cycles < maxCycles; cycles++) {
			int[] cycle = negativeCycle();
			if (cycle.length == 0) {
				break;
			}
			Set<Integer> changed = new TreeSet<>();
			for (int i = 0; i < cycle.length; i++) {
				int from = cycle[i];
				int to = cycle[(i + 1) % cycle.length];
				if (!isMoveNode(from) || !isMoveNode(to)) {
					continue;
				}
				int fromRow = rowOf(from);
				int toMember = memberOf(to);
				int task = this.best[fromRow][toMember];
				int group = groupOf(task);
				this.tasksOf.get(fromRow).remove(task);
				this.tasksOf.get(row(toMember, group)).add(task);
				this.owner[task] = toMember;
				this.count[memberOf(from)]--;
				this.count[toMember]++;
				if (this.groupCount != null) {
					this.groupCount[memberOf(from)][group]--;
					this.groupCount[toMember][group]++;
				}
				changed.add(fromRow);
				changed.add(row(toMember, group));
			}
			changed.forEach(this::computeEdges);
		}
		return this.owner.clone();
	}

	private long costHere(int task, int member) {
		long cost = this.costs.cost(task, member);
		return (cost == NOT_ALLOWED) ? DISALLOWED_STAY : cost;
	}

	private void computeEdges(int row) {
		int from = row / this.groups;
		Arrays.fill(this.weight[row], NO_EDGE);
		for (int task : this.tasksOf.get(row)) {
			long here = costHere(task, from);
			for (int to = 0; to < this.members; to++) {
				if (to == from) {
					continue;
				}
				long there = this.costs.cost(task, to);
				if (there == NOT_ALLOWED) {
					continue;
				}
				long delta = there - here;
				if (delta < this.weight[row][to]) {
					this.weight[row][to] = delta;
					this.best[row][to] = task;
				}
			}
		}
	}

	private int groupOf(int task) {
		return (this.spread != null) ? this.spread.groupOf()[task] : 0;
	}

	private int row(int member, int group) {
		return member * this.groups + group;
	}

	/** Without a spread the member nodes, {@code 0 .. members - 1}; with one the group nodes after the spare node. */
	private boolean isMoveNode(int node) {
		return (this.spread != null) ? node > this.members : node < this.members;
	}

	private int moveNode(int row) {
		return (this.spread != null) ? this.members + 1 + row : row;
	}

	private int rowOf(int moveNode) {
		return (this.spread != null) ? moveNode - this.members - 1 : moveNode;
	}

	private int memberOf(int node) {
		return (node < this.members) ? node : rowOf(node) / this.groups;
	}

	/**
	 * Bellman-Ford with a queue from a virtual source at distance zero to every node, on weights ordered by cost, then
	 * by evenness; the spare node is index {@code members}. Only nodes whose distance fell are scanned again, and every
	 * {@code nodes} relaxations the predecessor graph is searched for a cycle (any cycle there is negative), so a
	 * cycle is found without the {@code nodes} full passes plain Bellman-Ford always makes when one exists.
	 * @return the nodes of a negative cycle in the order tasks move along it, or none
	 */
	private int[] negativeCycle() {
		int nodes = this.members + 1 + ((this.spread != null) ? this.members * this.groups : 0);
		Relaxation relaxation = new Relaxation(nodes);
		while (!relaxation.queue.isEmpty() && !relaxation.exhausted()) {
			int from = relaxation.queue.poll();
			relaxation.queued[from] = false;
			if (from == this.members) {
				relaxFromSpare(relaxation);
			}
			else if (from < this.members) {
				relaxFromMember(from, relaxation);
			}
			else {
				relaxFromGroup(from, relaxation);
			}
			if (relaxation.cycle.length > 0) {
				return relaxation.cycle;
			}
		}
		return relaxation.cycle;
	}

	private void relaxFromMember(int from, Relaxation relaxation) {
		if (this.spread == null) {
			relaxMoves(from, relaxation);
		}
		else {
			for (int group = 0; group < this.groups && relaxation.cycle.length == 0; group++) {
				if (!this.tasksOf.get(row(from, group)).isEmpty()) {
					long fewer = (this.groupCount[from][group] > this.spread.cap()[from][group]) ? -OVER_CAP : 0;
					relaxation.relax(from, moveNode(row(from, group)), relaxation.distance[from] + fewer,
							relaxation.unevenness[from]);
				}
			}
		}
		if (this.count[from] < this.high[from] && relaxation.cycle.length == 0) {
			double gain = (2.0 * this.count[from] + 1) / this.capacity[from];
			relaxation.relax(from, this.members, relaxation.distance[from], relaxation.unevenness[from] + gain);
		}
	}

	private void relaxFromGroup(int from, Relaxation relaxation) {
		relaxMoves(from, relaxation);
		int row = rowOf(from);
		int member = row / this.groups;
		int group = row % this.groups;
		if (relaxation.cycle.length == 0) {
			long more = (this.groupCount[member][group] >= this.spread.cap()[member][group]) ? OVER_CAP : 0;
			relaxation.relax(from, member, relaxation.distance[from] + more, relaxation.unevenness[from]);
		}
	}

	private void relaxMoves(int from, Relaxation relaxation) {
		int row = rowOf(from);
		int group = row % this.groups;
		for (int to = 0; to < this.members && relaxation.cycle.length == 0; to++) {
			long edge = this.weight[row][to];
			if (edge != NO_EDGE) {
				relaxation.relax(from, moveNode(row(to, group)), relaxation.distance[from] + edge,
						relaxation.unevenness[from]);
			}
		}
	}

	private void relaxFromSpare(Relaxation relaxation) {
		int spare = this.members;
		for (int to = 0; to < this.members && relaxation.cycle.length == 0; to++) {
			if (this.count[to] > this.low[to]) {
				double loss = (2.0 * this.count[to] - 1) / this.capacity[to];
				relaxation.relax(spare, to, relaxation.distance[spare], relaxation.unevenness[spare] - loss);
			}
		}
	}

	/**
	 * The state of one search for a negative cycle.
	 */
	private static final class Relaxation {

		private final long[] distance;

		private final double[] unevenness;

		private final int[] previous;

		private final ArrayDeque<Integer> queue = new ArrayDeque<>();

		private final boolean[] queued;

		private long relaxations;

		private int[] cycle = new int[0];

		/** As many relaxations as plain Bellman-Ford makes at most: past them, give up rather than loop. */
		private final long bound;

		Relaxation(int nodes) {
			this.bound = (long) nodes * nodes * nodes + nodes;
			this.distance = new long[nodes];
			this.unevenness = new double[nodes];
			this.previous = new int[nodes];
			this.queued = new boolean[nodes];
			Arrays.fill(this.previous, -1);
			for (int node = 0; node < nodes; node++) {
				this.queue.add(node);
				this.queued[node] = true;
			}
		}

		boolean exhausted() {
			return this.relaxations > this.bound;
		}

		void relax(int from, int to, long distance, double unevenness) {
			if (!shorter(distance, unevenness, this.distance[to], this.unevenness[to])) {
				return;
			}
			this.distance[to] = distance;
			this.unevenness[to] = unevenness;
			this.previous[to] = from;
			if (++this.relaxations % this.previous.length == 0 || exhausted()) {
				this.cycle = cycleAmongPrevious();
			}
			if (!this.queued[to]) {
				this.queued[to] = true;
				this.queue.add(to);
			}
		}

		private int[] cycleAmongPrevious() {
			int nodes = this.previous.length;
			int[] walkedFrom = new int[nodes];
			Arrays.fill(walkedFrom, -1);
			for (int start = 0; start < nodes; start++) {
				int at = start;
				while (at != -1 && walkedFrom[at] == -1) {
					walkedFrom[at] = start;
					at = this.previous[at];
				}
				if (at != -1 && walkedFrom[at] == start) {
					return cycleThrough(at);
				}
			}
			return new int[0];
		}

		private int[] cycleThrough(int node) {
			List<Integer> backwards = new ArrayList<>();
			int at = node;
			do {
				backwards.add(at);
				at = this.previous[at];
			}
			while (at != node);
			int[] cycle = new int[backwards.size()];
			for (int i = 0; i < cycle.length; i++) {
				cycle[i] = backwards.get(cycle.length - 1 - i);
			}
			return cycle;
		}

	}

	private static boolean shorter(long cost, double unevenness, long than, double thanUnevenness) {
		return cost < than || (cost == than && unevenness < thanUnevenness - EPSILON);
	}

	/**
	 * Kafka's {@code balance_subtopology}: each task belongs to a group (its sub-topology), and no member should hold
	 * more of a group's tasks than its cap: the optimizer places as few above the caps as it can, whatever the start.
	 *
	 * @param groupOf the group of each task that may move
	 * @param count per member and group, the tasks it holds, those that may not move included
	 * @param cap per member and group, the most tasks it should hold
	 */
	record Spread(int[] groupOf, int[][] count, int[][] cap) {

		int groups() {
			return (this.cap.length == 0) ? 0 : this.cap[0].length;
		}

		boolean aboveCap(int member, int task) {
			int group = this.groupOf[task];
			return this.count[member][group] > this.cap[member][group];
		}

		/**
		 * The same groups and caps once the tasks {@code moved} picks go from {@code owner} to {@code placed}.
		 */
		Spread moved(int[] owner, int[] placed, IntPredicate moved) {
			int[][] after = Arrays.stream(this.count).map(int[]::clone).toArray(int[][]::new);
			for (int task = 0; task < owner.length; task++) {
				if (moved.test(task)) {
					after[owner[task]][this.groupOf[task]]--;
					after[placed[task]][this.groupOf[task]]++;
				}
			}
			return new Spread(this.groupOf, after, this.cap);
		}

		/**
		 * How many tasks the members hold above their caps.
		 */
		int aboveCaps() {
			int above = 0;
			for (int member = 0; member < this.count.length; member++) {
				for (int group = 0; group < this.count[member].length; group++) {
					above += Math.max(0, this.count[member][group] - this.cap[member][group]);
				}
			}
			return above;
		}

	}

	/**
	 * The cost of a task on a member.
	 */
	@FunctionalInterface
	interface Costs {

		long cost(int task, int member);

	}

}
