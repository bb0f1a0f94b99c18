package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import io.github.incrementalrebalance.control.ProgressRecord;
import io.github.incrementalrebalance.control.ProgressRecord.LearnerProgress;
import org.apache.kafka.streams.processor.TaskId;

/**
 * Whether a drain still gets somewhere: its learners that are not ready yet must get closer to ready. A drain whose
 * learners have not come closer for the stall bound (a changelog written faster than it restores, a learner's member
 * stuck, a member whose offsets are unknown) is stalled, and says so with the tasks and their lag; it goes on, since
 * only a deadline, a cancel or a kill may turn it into a cold move. Progress is a learner's lag below the lowest seen
 * for its task, or a task handed over; a learner that reports no lag makes none. One per leave, no I/O: the drain hands
 * in what the control topic shows, under its lock.
 */
final class DrainStallWatch {

	private final Duration bound;

	private final Map<String, Long> lowest = new HashMap<>();

	private Set<String> waitingFor = Set.of();

	private Instant progressAt;

	/**
	 * @param bound how long learners may not come closer before the drain counts as stalled
	 * @param since when the leave started, on the member's clock
	 */
	DrainStallWatch(Duration bound, Instant since) {
		this.bound = bound;
		this.progressAt = since;
	}

	/**
	 * The learners a drain waits for, as their members' progress records show them.
	 * @param beingLearned the leaving member's tasks whose learners warm up elsewhere
	 * @param progress the members' progress records
	 * @return the tasks whose learners are not ready, with the lag their learner reported, if one did
	 */
	static Map<String, Optional<Long>> notReady(Set<TaskId> beingLearned, List<ProgressRecord> progress) {
		Map<String, Optional<Long>> notReady = new HashMap<>();
		beingLearned.forEach((task) -> notReady.put(task.toString(), Optional.empty()));
		for (ProgressRecord record : progress) {
			for (LearnerProgress learner : record.learners()) {
				if (notReady.containsKey(learner.task())) {
					if (learner.ready()) {
						notReady.remove(learner.task());
					}
					else {
						notReady.put(learner.task(), Optional.of(learner.lag()));
					}
				}
			}
		}
		return notReady;
	}

	/**
	 * Look at the learners once more.
	 * @param now the member's time
	 * @param notReady the tasks being learned whose learners are not ready, with their lag where a learner reported one
	 * (a task without a value has no report)
	 * @return why the drain is stalled, empty while it gets somewhere (or waits for no learner)
	 */
	Optional<String> observe(Instant now, Map<String, Optional<Long>> notReady) {
		if (notReady.isEmpty() || !this.waitingFor.containsAll(notReady.keySet())
				|| notReady.size() < this.waitingFor.size()) {
			// no learner to wait for, a task handed over, or new learners placed: that is progress
			this.progressAt = now;
		}
		this.waitingFor = Set.copyOf(notReady.keySet());
		this.lowest.keySet().retainAll(this.waitingFor);
		notReady.forEach((task, lag) -> lag.ifPresent((value) -> {
			Long best = this.lowest.get(task);
			if (best == null || value < best) {
				this.lowest.put(task, value);
				this.progressAt = now;
			}
		}));
		if (notReady.isEmpty() || now.isBefore(this.progressAt.plus(this.bound))) {
			return Optional.empty();
		}
		long lag = this.lowest.values().stream().mapToLong(Long::longValue).sum();
		Set<String> silent = new TreeSet<>(notReady.keySet());
		silent.removeAll(this.lowest.keySet());
		return Optional.of("no learner of " + new TreeSet<>(notReady.keySet()) + " came closer to ready for "
				+ this.bound + " (lag " + lag + (silent.isEmpty() ? "" : "; no report for " + silent)
				+ "): the changelog may be written faster than it restores, or a learner's member is stuck; the leave "
				+ "goes on until its learners are ready, it is cancelled, or its timeout passes");
	}

}
