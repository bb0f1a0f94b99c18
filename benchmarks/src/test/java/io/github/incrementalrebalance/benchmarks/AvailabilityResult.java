package io.github.incrementalrebalance.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What one availability run measured, from the change (a leave request, a close, a join) until it is done.
 *
 * @param strategy the strategy
 * @param movedGap longest stall of the tasks that moved
 * @param unmovedGap longest stall of the other tasks
 * @param movedP99 99th percentile latency of the moved tasks' markers (send to processing)
 * @param unmovedP99 the same for the other tasks
 * @param complete until the new owners run the moved tasks
 * @param restored records restored into the moved tasks on their new owners
 * @param rebalances rebalances an instance that stayed went through
 * @param tasksMoved tasks that changed owner
 * @param timeline where the time went
 */
record AvailabilityResult(Strategy strategy, Duration movedGap, Duration unmovedGap, Duration movedP99,
		Duration unmovedP99, Duration complete, long restored, long rebalances, int tasksMoved, List<Timeline.Step> timeline) {

	String row() {
		return String.format("| %s | %.1f s | %.1f s | %.1f s | %.1f s | %.1f s | %,d | %d | %d |", this.strategy.id(),
				seconds(this.movedGap), seconds(this.unmovedGap), seconds(this.movedP99), seconds(this.unmovedP99),
				seconds(this.complete), this.restored, this.rebalances, this.tasksMoved);
	}

	String breakdown() {
		return this.strategy.id() + ": " + this.timeline.stream()
			.map((step) -> String.format("+%.2f s %s", step.atMs() / 1000.0, step.name()))
			.collect(Collectors.joining(", "));
	}

	static String header() {
		return "| strategy | longest stall, moved tasks | longest stall, other tasks | p99 latency, moved | "
				+ "p99 latency, other | until done | records restored at promotion | rebalances | tasks moved |\n"
				+ "|---|---|---|---|---|---|---|---|---|";
	}

	private static double seconds(Duration duration) {
		return duration.toMillis() / 1000.0;
	}

}
