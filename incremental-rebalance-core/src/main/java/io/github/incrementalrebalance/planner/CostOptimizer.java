package io.github.incrementalrebalance.planner;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

/**
 * Places tasks where the sum of their costs is lowest while each member keeps a number of tasks within a range: a
 * min-cost flow solved by cancelling negative cycles, as Kafka's rack-aware assignment does, but on a graph of
 * members instead of tasks and members. An edge from member {@code a} to member {@code b} is the cheapest move of one
 * of {@code a}'s tasks to {@code b}; a cycle of such edges moves one task along each and keeps every count, and a spare
 * node closes paths from a member above its lower bound to one below its upper bound. Any cheaper placement differs
 * from the current one by such cycles, so when none is negative the placement is optimal. Among placements of the
 * same cost the most even one wins: a path through the spare node also weighs the change of the sum of the members'
 * squared tasks per thread, compared only when the costs tie. Pure; indexes in, indexes out.
 */
final class CostOptimizer {

	/** The cost of a placement the task may not have. */
	static final long NOT_ALLOWED = Long.MAX_VALUE;

	/** What staying on a member it may not run on costs: more than any placement it may have. */
	private static final long DISALLOWED_STAY = 1L << 40;

	private static final long NO_EDGE = Long.MAX_VALUE;

	private static final double EPSILON = 1e-9;

	private final int members;

	private final int[] owner;

	private final int[] count;

	private final int[] low;

	private final int[] high;

	private final int[] capacity;

	private final Costs costs;

	private final List<TreeSet<Integer>> tasksOf = new ArrayList<>();

	private final long[][] weight;

	private final int[][] best;

	/**
	 * @param owner the member index of each task that may move
	 * @param count each member's tasks, those that may not move included
	 * @param low the fewest tasks each member may end with
	 * @param high the most tasks each member may end with
	 * @param capacity each member's threads
	 * @param costs what a task costs on a member, {@link #NOT_ALLOWED} where it may not go
	 */
	CostOptimizer(int[] owner, int[] count, int[] low, int[] high, int[] capacity, Costs costs) {
		this.members = count.length;
		this.owner = owner.clone();
		this.count = count.clone();
		this.low = low;
		this.high = high;
		this.capacity = capacity;
		this.costs = costs;
		for (int member = 0; member < this.members; member++) {
			this.tasksOf.add(new TreeSet<>());
		}
		for (int task = 0; task < owner.length; task++) {
			this.tasksOf.get(owner[task]).add(task);
		}
		this.weight = new long[this.members][this.members];
		this.best = new int[this.members][this.members];
		for (int member = 0; member < this.members; member++) {
			computeEdges(member);
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
			List<Integer> changed = new ArrayList<>();
			for (int i = 0; i < cycle.length; i++) {
				int from = cycle[i];
				int to = cycle[(i + 1) % cycle.length];
				if (from == this.members || to == this.members) {
					continue;
				}
				int task = this.best[from][to];
				this.tasksOf.get(from).remove(task);
				this.tasksOf.get(to).add(task);
				this.owner[task] = to;
				this.count[from]--;
				this.count[to]++;
				changed.add(from);
				changed.add(to);
			}
			changed.forEach(this::computeEdges);
		}
		return this.owner.clone();
	}

	private long costHere(int task, int member) {
		long cost = this.costs.cost(task, member);
		return (cost == NOT_ALLOWED) ? DISALLOWED_STAY : cost;
	}

	private void computeEdges(int from) {
		Arrays.fill(this.weight[from], NO_EDGE);
		for (int task : this.tasksOf.get(from)) {
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
				if (delta < this.weight[from][to]) {
					this.weight[from][to] = delta;
					this.best[from][to] = task;
				}
			}
		}
	}

	/**
	 * Bellman-Ford with a queue from a virtual source at distance zero to every node, on weights ordered by cost, then
	 * by evenness; the spare node is index {@code members}. Only nodes whose distance fell are scanned again, and every
	 * {@code nodes} relaxations the predecessor graph is searched for a cycle (any cycle there is negative), so a
	 * cycle is found without the {@code nodes} full passes plain Bellman-Ford always makes when one exists.
	 * @return the nodes of a negative cycle in the order tasks move along it, or none
	 */
	private int[] negativeCycle() {
		int nodes = this.members + 1;
		Relaxation relaxation = new Relaxation(nodes);
		while (!relaxation.queue.isEmpty() && !relaxation.exhausted()) {
			int from = relaxation.queue.poll();
			relaxation.queued[from] = false;
			if (from == this.members) {
				relaxFromSpare(relaxation);
			}
			else {
				relaxFromMember(from, relaxation);
			}
			if (relaxation.cycle.length > 0) {
				return relaxation.cycle;
			}
		}
		return relaxation.cycle;
	}

	private void relaxFromMember(int from, Relaxation relaxation) {
		for (int to = 0; to < this.members && relaxation.cycle.length == 0; to++) {
			long edge = this.weight[from][to];
			if (edge != NO_EDGE) {
				relaxation.relax(from, to, relaxation.distance[from] + edge, relaxation.unevenness[from]);
			}
		}
		if (this.count[from] < this.high[from] && relaxation.cycle.length == 0) {
			double gain = (2.0 * this.count[from] + 1) / this.capacity[from];
			relaxation.relax(from, this.members, relaxation.distance[from], relaxation.unevenness[from] + gain);
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
	 * The cost of a task on a member.
	 */
	@FunctionalInterface
	interface Costs {

		long cost(int task, int member);

	}

}
