package io.github.incrementalrebalance.chaos;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import io.github.incrementalrebalance.benchmarks.ResultsJson;

/**
 * What a chaos run found, written to {@code benchmarks/target/chaos-report.json} with the commit it ran on.
 *
 * @param seed the seed that replays the run
 * @param events how many events were applied
 * @param lost keys counted fewer times than they were sent
 * @param duplicated keys counted more times than they were sent, plus counts that reached the end twice
 * @param converged events after which the group settled within the bound
 * @param notConverged events after which it did not
 * @param outcomes how the leaves ended: outcome to count
 * @param stallMs per event kind, the longest stall of any task in each event (p50, p99, max over the events)
 * @param restoredAtPromotion per event kind, the records restored into active tasks during its events
 * @param unaskedLeaves leaves on the control topic that the run did not ask for: instances that drained unasked
 * @param faults per kind of network fault, how many events applied it
 * @param heartbeatMs the members' heartbeat interval
 * @param sessionMs the members' session timeout
 * @param kinds the kinds the run drew from ({@code -Dchaos.kinds}); empty when it drew from every kind
 * @param eventLog every event, in order
 */
record ChaosReport(long seed, int events, long lost, long duplicated, int converged, int notConverged,
		Map<String, Integer> outcomes, Map<String, Stall> stallMs, Map<String, Long> restoredAtPromotion,
		int unaskedLeaves, Map<String, Integer> faults, long heartbeatMs, long sessionMs, List<String> kinds,
		List<Event> eventLog) {

	static ChaosReport of(ChaosSettings settings, List<Event> events, long lost, long duplicated, int unaskedLeaves) {
		Map<String, Integer> outcomes = new TreeMap<>();
		events.forEach((event) -> event.outcomes().forEach((outcome) -> outcomes.merge(outcome.outcome(), 1,
				Integer::sum)));
		Map<String, Stall> stalls = new TreeMap<>();
		events.stream()
			.collect(Collectors.groupingBy(Event::kind, TreeMap::new,
					Collectors.mapping(Event::maxStallMs, Collectors.toList())))
			.forEach((kind, values) -> stalls.put(kind, Stall.of(values)));
		Map<String, Long> restored = new TreeMap<>();
		events.forEach((event) -> restored.merge(event.kind(), event.restoredAtPromotion(), Long::sum));
		Map<String, Integer> faults = new TreeMap<>();
		for (ChaosEvent kind : ChaosEvent.values()) {
			if (kind.fault() || kind.cluster()) {
				faults.put(kind.word(), (int) events.stream().filter((event) -> event.kind().equals(kind.word())).count());
			}
		}
		int converged = (int) events.stream().filter(Event::converged).count();
		return new ChaosReport(settings.seed(), events.size(), lost, duplicated, converged, events.size() - converged,
				outcomes, stalls, restored, unaskedLeaves,
				(settings.faults() || settings.brokers() == 3) ? faults : Map.of(),
				settings.heartbeat().toMillis(), settings.session().toMillis(),
				settings.kinds().stream().map(ChaosEvent::word).sorted().toList(), List.copyOf(events));
	}

	void write(Path file) {
		ResultsJson.writeValue(file, this);
	}

	/**
	 * The one line the run prints.
	 * @return {@code chaos: seed=... events=... lost=... duplicated=... converged=.../... outcomes={...} ...}
	 */
	String summary() {
		return "chaos: seed=" + this.seed + " events=" + this.events + " lost=" + this.lost + " duplicated="
				+ this.duplicated + " converged=" + this.converged + "/" + this.events + " unasked=" + this.unaskedLeaves
				+ " outcomes=" + this.outcomes + " faults=" + this.faults + " heartbeat/session ms=" + this.heartbeatMs
				+ "/" + this.sessionMs + (this.kinds.isEmpty() ? "" : " kinds=" + this.kinds)
				+ " stall max ms per kind=" + this.stallMs.entrySet().stream()
					.map((entry) -> entry.getKey() + ":" + entry.getValue().max())
					.collect(Collectors.joining(", ", "{", "}"));
	}

	/**
	 * A distribution of stalls.
	 *
	 * @param p50 the median, in ms
	 * @param p99 the 99th percentile, in ms
	 * @param max the longest, in ms
	 * @param count over how many events
	 */
	record Stall(long p50, long p99, long max, int count) {

		static Stall of(List<Long> values) {
			List<Long> sorted = new ArrayList<>(values);
			sorted.sort(null);
			return new Stall(percentile(sorted, 50), percentile(sorted, 99), sorted.get(sorted.size() - 1),
					sorted.size());
		}

		private static long percentile(List<Long> sorted, double percentile) {
			int index = (int) Math.ceil(percentile / 100 * sorted.size()) - 1;
			return sorted.get(Math.min(Math.max(index, 0), sorted.size() - 1));
		}

	}

	/**
	 * One event and what it did.
	 *
	 * @param index its place in the run, from 1
	 * @param kind what happened
	 * @param targets the instances it acted on (started, asked to leave, killed)
	 * @param durationMs from the event until the group settled (or the bound)
	 * @param converged whether the group settled within the bound
	 * @param notConvergedBecause what still kept it from settling at the bound
	 * @param maxStallMs the longest stall of any stateful task (end to end, through both sub-topologies)
	 * @param stallMsByTask each stateful task's longest stall
	 * @param restoredAtPromotion records restored into active tasks meanwhile
	 * @param rebalances group generations completed meanwhile
	 * @param outcomes how the leaves of this event ended
	 */
	record Event(int index, String kind, List<String> targets, long durationMs, boolean converged,
			String notConvergedBecause, long maxStallMs, Map<String, Long> stallMsByTask, long restoredAtPromotion,
			int rebalances, List<Outcome> outcomes) {
	}

	/**
	 * How one leave ended.
	 *
	 * @param instanceId the instance asked to leave
	 * @param leaveId the request
	 * @param outcome {@code drained}, {@code forced}, {@code left-without-learners} (the member's words), or what the
	 * run did to it: {@code cancelled}, {@code killed} (while leaving), {@code replaced} (asked again),
	 * {@code ignored} (its start was gone)
	 * @param reason the member's reason, or the run's
	 * @param tasksMovedCold stateful tasks that moved without a ready learner
	 * @param restoredIntoItsTasks records restored at promotion into each stateful task the instance ran when asked,
	 * during its event: what a {@code drained} leave promises is at most a learner's lag
	 */
	record Outcome(String instanceId, String leaveId, String outcome, String reason, int tasksMovedCold,
			Map<String, Long> restoredIntoItsTasks) {
	}

}
