package io.github.incrementalrebalance.assignor;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.incrementalrebalance.config.Backoff;

/**
 * What the assignors of one application share across rebalances: how often planning failed and Kafka's sticky assignor
 * was used instead, and why; whether tasks could be weighed as asked. Kafka makes a new assignor per rebalance, so this
 * object lives in the Streams config under {@link #CONFIG}. Its fallback count sets the back-off of the retry.
 */
public final class AssignorStatus {

	/** Streams config key of the status object. */
	public static final String CONFIG = "incremental.rebalance.assignor.status";

	private static final Backoff RETRY = Backoff.doubling(Duration.ofSeconds(1), Duration.ofMinutes(5));

	private final AtomicLong fallbacks = new AtomicLong();

	private final AtomicLong consecutiveFallbacks = new AtomicLong();

	private final AtomicReference<String> lastFallbackReason = new AtomicReference<>();

	private final AtomicLong incompleteInARow = new AtomicLong();

	private final AtomicLong unchangedInARow = new AtomicLong();

	private final AtomicLong assignments = new AtomicLong();

	private final AtomicLong unchangedAssignments = new AtomicLong();

	private final AtomicLong weighedByCount = new AtomicLong();

	private final AtomicReference<String> weightProblem = new AtomicReference<>();

	public long fallbacks() {
		return this.fallbacks.get();
	}

	public Optional<String> lastFallbackReason() {
		return Optional.ofNullable(this.lastFallbackReason.get());
	}

	/**
	 * Whether the last planning round failed, so that the group runs Kafka's sticky assignment: no learners, and
	 * leaves end without them until a round plans again.
	 * @return true while falling back
	 */
	public boolean fallingBack() {
		return this.consecutiveFallbacks.get() > 0;
	}

	/**
	 * Record a failed planning round.
	 * @param reason why it failed
	 * @return how long to wait before retrying: doubles with every consecutive failure, from 1 s up to 5 min, so a
	 * deterministic error cannot storm the group with rebalances
	 */
	Duration fallback(String reason) {
		this.fallbacks.incrementAndGet();
		this.lastFallbackReason.set(reason);
		return RETRY.pauseAfter(this.consecutiveFallbacks.incrementAndGet());
	}

	/**
	 * Record a planned round.
	 * @param changed whether it assigned any member start other tasks (active, learner or standby) than the plan of
	 * the generation before
	 * @param incomplete whether it could not do its work: it went without the changelogs' end offsets, or held a
	 * leaving member's hand-over
	 */
	void planned(boolean changed, boolean incomplete) {
		this.consecutiveFallbacks.set(0);
		if (incomplete) {
			this.incompleteInARow.incrementAndGet();
		}
		else {
			this.incompleteInARow.set(0);
		}
		this.assignments.incrementAndGet();
		if (!changed) {
			this.unchangedAssignments.incrementAndGet();
			this.unchangedInARow.incrementAndGet();
		}
		else {
			this.unchangedInARow.set(0);
		}
	}

	/**
	 * How many planned rounds in a row, up to the last, could not do their work (without the changelogs' end offsets,
	 * or holding a hand-over).
	 * @return the rounds; 0 when the last could
	 */
	long incompleteInARow() {
		return this.incompleteInARow.get();
	}

	/**
	 * How many planned rounds in a row, up to the last, gave every member start the tasks it had.
	 * @return the rounds; 0 when the last changed something
	 */
	long unchangedInARow() {
		return this.unchangedInARow.get();
	}

	/**
	 * Rounds this instance led that planned.
	 * @return how many
	 */
	public long assignments() {
		return this.assignments.get();
	}

	/**
	 * Rounds this instance led that planned and gave every member start the tasks it had: a rebalance every member
	 * paid for that moved nothing (its cause is counted by the member that asked).
	 * @return how many
	 */
	public long unchangedAssignments() {
		return this.unchangedAssignments.get();
	}

	/**
	 * Assignments led while tasks were to weigh their state size but weighed one each, because the changelog sizes
	 * could not be read.
	 * @return how many
	 */
	public long weighedByCount() {
		return this.weighedByCount.get();
	}

	/**
	 * Why the last assignment led with {@code incremental.rebalance.task.weight=state-size} weighed tasks by count.
	 * @return the reason, or empty when it weighed them by state size
	 */
	public Optional<String> weightProblem() {
		return Optional.ofNullable(this.weightProblem.get());
	}

	void weighedByCount(String reason) {
		this.weighedByCount.incrementAndGet();
		this.weightProblem.set(reason);
	}

	void weighedByStateSize() {
		this.weightProblem.set(null);
	}

}
