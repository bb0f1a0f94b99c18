package io.github.incrementalrebalance.chaos;

import java.util.Locale;

/**
 * The kinds of scale events the chaos run applies. Each names what an operator, a deploy or a fault does to the group.
 */
enum ChaosEvent {

	/** A new instance joins with no state. */
	START(0),

	/** An instance is asked to leave without a deadline (eager or conservative, as the instance is configured). */
	LEAVE(1),

	/** An instance is asked to leave with a deadline its learners meet. */
	LEAVE_WITH_DEADLINE(1),

	/** An instance is asked to leave with a deadline too short for its learners: it is forced. */
	LEAVE_WITH_SHORT_DEADLINE(1),

	/** An instance is asked to leave, then the leave is cancelled while its learners warm up. */
	LEAVE_THEN_CANCEL(1),

	/** New instances start, then as many old ones are asked to leave at once. */
	HOST_SWAP(0),

	/** An instance shuts down gracefully (SIGTERM): a plain leave of the group, without learners. */
	CLOSE(1),

	/** An instance is killed ({@code kill -9}). */
	KILL(1),

	/** The current leader is killed ({@code kill -9}). */
	KILL_LEADER(1),

	/** An instance is asked to leave and, while its learners warm up, the leader (or another instance) is killed. */
	KILL_DURING_DRAIN(2),

	/** An instance that is already leaving is asked to leave again. */
	LEAVE_TWICE(1),

	/** A leave is written for an instance that is gone (its last start). */
	LEAVE_GONE(0);

	/** How many instances the event removes at most: the run keeps at least two. */
	private final int removes;

	ChaosEvent(int removes) {
		this.removes = removes;
	}

	int removes() {
		return this.removes;
	}

	String word() {
		return name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

}
