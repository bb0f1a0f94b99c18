package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.github.incrementalrebalance.control.ProgressRecord.LearnerProgress;
import org.apache.kafka.streams.processor.TaskId;

/**
 * How fast each learner of this member restores, and when it will be ready: the rate is how far its lag fell over the
 * samples of the last {@link #WINDOW}, so what the active task writes meanwhile counts against it, and a restore that
 * stalls shows as no ETA rather than an old promise. Ready means what the learner watcher acts on:
 * the {@link ReadyLag}. No I/O: the member samples the lags and hands them in.
 */
final class LearnerProgressTracker {

	/** Long enough to smooth a restore's batches, short enough to follow a change of pace within seconds. */
	static final Duration WINDOW = Duration.ofSeconds(10);

	/** Below this span two samples tell more about batch boundaries than about the rate. */
	static final Duration SHORTEST_SPAN = Duration.ofSeconds(1);

	private final ReadyLag readyLag;

	private final Map<TaskId, Deque<Sample>> samples = new HashMap<>();

	/**
	 * @param acceptableRecoveryLag the group's {@code acceptable.recovery.lag}
	 */
	LearnerProgressTracker(long acceptableRecoveryLag) {
		this.readyLag = ReadyLag.of(acceptableRecoveryLag);
	}

	/**
	 * Take a sample of the learners' lags.
	 * @param now when the lags were read
	 * @param learners the learners the plan gives this member; others are forgotten
	 * @param lags the local lags; a learner without one (its stores are not open yet) is left out
	 * @return the progress of each learner with a lag, by task
	 */
	List<LearnerProgress> sample(Instant now, Set<TaskId> learners, Map<TaskId, Long> lags) {
		this.samples.keySet().retainAll(learners);
		List<LearnerProgress> measured = new ArrayList<>();
		learners.stream().sorted().filter(lags::containsKey).forEach((task) -> {
			Deque<Sample> window = this.samples.computeIfAbsent(task, (t) -> new ArrayDeque<>());
			long lag = lags.get(task);
			window.addLast(new Sample(now, lag));
			while (window.size() > 2 && window.getFirst().at().isBefore(now.minus(WINDOW))) {
				window.removeFirst();
			}
			measured.add(progress(task, window));
		});
		return withQueuedEtas(measured);
	}

	private LearnerProgress progress(TaskId task, Deque<Sample> window) {
		Sample first = restoreStart(window);
		Sample last = window.getLast();
		Duration span = Duration.between(first.at(), last.at());
		double rate = (span.compareTo(SHORTEST_SPAN) >= 0)
				? Math.max(0, (first.lag() - last.lag()) * 1000.0 / span.toMillis()) : 0;
		boolean ready = this.readyLag.isReady(last.lag());
		Optional<Duration> eta = ready ? Optional.of(Duration.ZERO)
				: (rate > 0) ? Optional.of(duration(last.lag() - this.readyLag.records(), rate)) : Optional.empty();
		return new LearnerProgress(task.toString(), last.lag(), rate, ready, eta);
	}

	/**
	 * Where the rate is measured from: a learner queued behind another one of its member keeps its lag (or sees it
	 * grow with the active task's writes) until its own restore starts, and that wait is already in the queued ETA; so
	 * when the lag fell over the window, the rate counts from the last sample before it started falling. When it did
	 * not fall, the whole window, so a restore slower than the writes shows as none.
	 */
	private static Sample restoreStart(Deque<Sample> window) {
		Sample first = window.getFirst();
		if (first.lag() <= window.getLast().lag()) {
			return first;
		}
		Sample start = first;
		for (Sample sample : window) {
			if (sample.lag() < start.lag()) {
				return start;
			}
			start = sample;
		}
		return start;
	}

	/**
	 * A stream thread restores its learners one after another, so a learner may wait for the member's restore
	 * bandwidth while another one takes it: such a learner is given the time all of the member's unready learners
	 * take at the member's rate, the latest it can be ready while that rate holds.
	 */
	private List<LearnerProgress> withQueuedEtas(List<LearnerProgress> measured) {
		double memberRate = measured.stream().mapToDouble(LearnerProgress::recordsPerSecond).sum();
		long remaining = measured.stream()
			.filter((learner) -> !learner.ready())
			.mapToLong((learner) -> learner.lag() - this.readyLag.records())
			.sum();
		if (memberRate <= 0) {
			return measured;
		}
		return measured.stream()
			.map((learner) -> learner.eta().isPresent() ? learner : new LearnerProgress(learner.task(), learner.lag(),
					learner.recordsPerSecond(), false, Optional.of(duration(remaining, memberRate))))
			.toList();
	}

	private static Duration duration(long records, double recordsPerSecond) {
		return Duration.ofMillis((long) (records * 1000.0 / recordsPerSecond));
	}

	private record Sample(Instant at, long lag) {
	}

}
