package io.github.incrementalrebalance.testkit;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.streams.processor.TaskId;

/**
 * Measures how long each task stopped processing. The topology reports every marker record it processes; the gap of
 * a task over a window is the longest time in it without a processed marker, counting the window's edges, so a task
 * that never resumes shows the whole window. A marker's latency is from its send to its processing.
 */
public final class GapMeter {

	private final Map<TaskId, List<Processed>> processed = new ConcurrentHashMap<>();

	/**
	 * Called by the topology for each marker it processes.
	 * @param task the task that processed it
	 * @param instance the instance running that task
	 * @param sentAt when the producer sent it
	 */
	public void markerProcessed(TaskId task, String instance, Instant sentAt) {
		List<Processed> list = this.processed.computeIfAbsent(task, (t) -> new ArrayList<>());
		Instant now = Instant.now();
		synchronized (list) {
			list.add(new Processed(now, instance, Duration.between(sentAt, now)));
		}
	}

	/**
	 * A percentile of the latency of the markers several tasks processed in a window.
	 * @param tasks the tasks
	 * @param from start of the window
	 * @param to end of the window
	 * @param percentile between 0 and 100
	 * @return the latency; zero when no marker was processed
	 */
	public Duration latencyPercentile(Collection<TaskId> tasks, Instant from, Instant to, double percentile) {
		List<Duration> latencies = tasks.stream()
			.flatMap((task) -> markers(task).stream())
			.filter((marker) -> !marker.at().isBefore(from) && !marker.at().isAfter(to))
			.map(Processed::latency)
			.sorted()
			.toList();
		if (latencies.isEmpty()) {
			return Duration.ZERO;
		}
		int index = (int) Math.ceil(percentile / 100 * latencies.size()) - 1;
		return latencies.get(Math.min(Math.max(index, 0), latencies.size() - 1));
	}

	/**
	 * The longest time a task went without processing a marker.
	 * @param task the task
	 * @param from start of the window
	 * @param to end of the window
	 * @return the longest gap
	 */
	public Duration longestGap(TaskId task, Instant from, Instant to) {
		return gap(task, from, to).length();
	}

	/**
	 * Where the longest stall among several tasks was: which task, from when, how long (for a test's report of a
	 * figure it asserts on).
	 * @param tasks the tasks
	 * @param from start of the window
	 * @param to end of the window
	 * @return the longest gap
	 */
	public Gap longestGapOf(Collection<TaskId> tasks, Instant from, Instant to) {
		return tasks.stream()
			.map((task) -> gap(task, from, to))
			.max(Comparator.comparing(Gap::length))
			.orElse(new Gap(null, from, Duration.ZERO, null, null));
	}

	private Gap gap(TaskId task, Instant from, Instant to) {
		Instant previous = from;
		String previousBy = null;
		Gap longest = new Gap(task, from, Duration.ZERO, null, null);
		for (Processed marker : markers(task)) {
			if (marker.at().isBefore(from) || marker.at().isAfter(to)) {
				continue;
			}
			Duration gap = Duration.between(previous, marker.at());
			if (gap.compareTo(longest.length()) > 0) {
				longest = new Gap(task, previous, gap, previousBy, marker.instance());
			}
			previous = marker.at();
			previousBy = marker.instance();
		}
		Duration tail = Duration.between(previous, to);
		return (tail.compareTo(longest.length()) > 0) ? new Gap(task, previous, tail, previousBy, null) : longest;
	}

	/**
	 * The longest gap among several tasks.
	 * @param tasks the tasks
	 * @param from start of the window
	 * @param to end of the window
	 * @return the longest gap of any of them
	 */
	public Duration longestGap(Collection<TaskId> tasks, Instant from, Instant to) {
		return tasks.stream()
			.map((task) -> longestGap(task, from, to))
			.max(Duration::compareTo)
			.orElse(Duration.ZERO);
	}

	/**
	 * Whether an instance processed a marker of a task after a moment.
	 * @param task the task
	 * @param instance the instance
	 * @param after the moment
	 * @return the number of markers it processed since then
	 */
	public long processedBy(TaskId task, String instance, Instant after) {
		return markers(task).stream()
			.filter((marker) -> marker.instance().equals(instance) && marker.at().isAfter(after))
			.count();
	}

	/**
	 * Whether every task processed a marker after a moment.
	 * @param tasks the tasks
	 * @param after the moment
	 * @return true when each processed at least one
	 */
	public boolean allProcessedSince(Collection<TaskId> tasks, Instant after) {
		return tasks.stream().allMatch((task) -> markers(task).stream().anyMatch((m) -> m.at().isAfter(after)));
	}

	/**
	 * Whether every task processed a marker on one of some instances after a moment: where tasks moved, that their new
	 * owners run them, which the old owner's last markers cannot answer for.
	 * @param tasks the tasks
	 * @param instances the instances' names
	 * @param after the moment
	 * @return true when each processed at least one there
	 */
	public boolean allProcessedOnSince(Collection<TaskId> tasks, Collection<String> instances, Instant after) {
		return tasks.stream()
			.allMatch((task) -> markers(task).stream()
				.anyMatch((m) -> instances.contains(m.instance()) && m.at().isAfter(after)));
	}

	/**
	 * Whether every task processed a marker on its own owner after a moment: after a rebalance that moved tasks among
	 * several instances, that each runs where it now belongs.
	 * @param owners each task's owner, by the instance's name
	 * @param after the moment
	 * @return true when each processed at least one on its owner
	 */
	public boolean eachProcessedOnItsOwnerSince(Map<TaskId, String> owners, Instant after) {
		return owners.entrySet().stream()
			.allMatch((owner) -> allProcessedOnSince(List.of(owner.getKey()), List.of(owner.getValue()), after));
	}

	/**
	 * When an instance last processed a marker of a task in a window: where a task that moved stopped.
	 * @param task the task
	 * @param instance the instance
	 * @param from start of the window
	 * @param to end of the window
	 * @return the moment, empty when it processed none
	 */
	public Optional<Instant> lastProcessedBy(TaskId task, String instance, Instant from, Instant to) {
		return markers(task).stream()
			.filter((marker) -> marker.instance().equals(instance) && !marker.at().isBefore(from)
					&& !marker.at().isAfter(to))
			.map(Processed::at)
			.max(Instant::compareTo);
	}

	/**
	 * When a task first processed a marker after a moment: after its last one on its old owner, where it resumed.
	 * @param task the task
	 * @param after the moment
	 * @return the moment, empty when it processed none since
	 */
	public Optional<Instant> firstProcessedAfter(TaskId task, Instant after) {
		return markers(task).stream().map(Processed::at).filter((at) -> at.isAfter(after)).min(Instant::compareTo);
	}

	private List<Processed> markers(TaskId task) {
		List<Processed> list = this.processed.getOrDefault(task, List.of());
		synchronized (list) {
			return new ArrayList<>(list);
		}
	}

	private record Processed(Instant at, String instance, Duration latency) {
	}

	/**
	 * A stall of one task.
	 * @param task the task, null when there was none
	 * @param from its last marker before the stall
	 * @param length how long it lasted
	 * @param before the instance that processed its last marker before the stall, null at the window's start
	 * @param after the instance that processed its first marker after, null when it did not resume in the window
	 */
	public record Gap(TaskId task, Instant from, Duration length, String before, String after) {

		/**
		 * @return when it ended
		 */
		public Instant to() {
			return this.from.plus(this.length);
		}

	}

}
