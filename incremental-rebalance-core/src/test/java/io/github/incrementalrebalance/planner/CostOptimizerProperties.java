package io.github.incrementalrebalance.planner;

import java.util.Arrays;
import java.util.Random;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cost step's min-cost flow against every placement of small groups: with caps per sub-topology (Kafka's
 * {@code balance_subtopology}), from any start, it ends with as few tasks above the caps as any placement within the
 * members' count bounds, and among those at the least cost; without caps, at the least cost.
 */
class CostOptimizerProperties {

	@Property(tries = 300)
	void endsWithTheFewestTasksAboveTheCapsThenTheLeastCost(@ForAll @IntRange(min = 2, max = 4) int members,
			@ForAll @IntRange(min = 1, max = 7) int tasks, @ForAll boolean capped, @ForAll long seed) {
		Random random = new Random(seed);
		int groups = 2;
		int[] groupOf = new int[tasks];
		int[] owner = new int[tasks];
		long[][] cost = new long[tasks][members];
		for (int task = 0; task < tasks; task++) {
			groupOf[task] = random.nextInt(groups);
			owner[task] = random.nextInt(members);
			for (int member = 0; member < members; member++) {
				cost[task][member] = random.nextInt(4) * 10L;
			}
		}
		int[] count = new int[members];
		int[][] groupCount = new int[members][groups];
		for (int task = 0; task < tasks; task++) {
			count[owner[task]]++;
			groupCount[owner[task]][groupOf[task]]++;
		}
		int[] low = new int[members];
		int[] high = new int[members];
		int[][] cap = new int[members][groups];
		for (int member = 0; member < members; member++) {
			low[member] = Math.max(0, count[member] - random.nextInt(2));
			high[member] = count[member] + random.nextInt(2);
			for (int group = 0; group < groups; group++) {
				cap[member][group] = random.nextInt(3);
			}
		}
		int[] capacity = new int[members];
		Arrays.fill(capacity, 1);
		CostOptimizer.Spread spread = capped ? new CostOptimizer.Spread(groupOf, groupCount, cap) : null;

		int[] placed = new CostOptimizer(owner, count, low, high, capacity, (task, member) -> cost[task][member], spread)
			.optimize(1_000);

		long[] best = { Long.MAX_VALUE, Long.MAX_VALUE };
		int[] placement = new int[tasks];
		search(0, placement, members, low, high, groupOf, cap, cost, capped, best);
		long[] ours = score(placed, members, groupOf, cap, cost, capped);
		assertThat(countsWithin(placed, members, low, high)).as("counts within their bounds").isTrue();
		assertThat(ours).as("tasks above the caps, then cost").containsExactly(best);
	}

	private static void search(int task, int[] placement, int members, int[] low, int[] high, int[] groupOf,
			int[][] cap, long[][] cost, boolean capped, long[] best) {
		if (task == placement.length) {
			if (countsWithin(placement, members, low, high)) {
				long[] score = score(placement, members, groupOf, cap, cost, capped);
				if (score[0] < best[0] || (score[0] == best[0] && score[1] < best[1])) {
					best[0] = score[0];
					best[1] = score[1];
				}
			}
			return;
		}
		for (int member = 0; member < members; member++) {
			placement[task] = member;
			search(task + 1, placement, members, low, high, groupOf, cap, cost, capped, best);
		}
	}

	private static boolean countsWithin(int[] placement, int members, int[] low, int[] high) {
		int[] count = new int[members];
		for (int member : placement) {
			count[member]++;
		}
		for (int member = 0; member < members; member++) {
			if (count[member] < low[member] || count[member] > high[member]) {
				return false;
			}
		}
		return true;
	}

	private static long[] score(int[] placement, int members, int[] groupOf, int[][] cap, long[][] cost,
			boolean capped) {
		int[][] groupCount = new int[members][2];
		long total = 0;
		for (int task = 0; task < placement.length; task++) {
			groupCount[placement[task]][groupOf[task]]++;
			total += cost[task][placement[task]];
		}
		long above = 0;
		for (int member = 0; capped && member < members; member++) {
			for (int group = 0; group < 2; group++) {
				above += Math.max(0, groupCount[member][group] - cap[member][group]);
			}
		}
		return new long[] { above, total };
	}

}
