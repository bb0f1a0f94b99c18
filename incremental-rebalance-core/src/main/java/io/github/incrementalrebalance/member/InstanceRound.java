package io.github.incrementalrebalance.member;

/**
 * A rebalance that every main consumer of one instance joins. Each stream thread's consumer is a member of the group
 * of its own, and a round completes only once all of them have joined it: one consumer begins the round (it took a
 * request, or joins by itself), and the others join it on their own threads at their next poll instead of at their
 * next heartbeat.
 *
 * @param sequence the instance's count of the rounds it began; 0 before the first
 * @param reason why, sent to the group coordinator by each consumer that joins
 * @param after the newest generation a consumer of the instance had completed when the round began
 */
record InstanceRound(long sequence, String reason, int after) {

	static final InstanceRound NONE = new InstanceRound(0, "", Integer.MIN_VALUE);

	/**
	 * What one consumer of the instance does about this round.
	 * @param joined the sequence of the last round the consumer joined or let pass
	 * @param completed the newest generation the consumer completed, -1 before its first
	 * @return the step
	 */
	Step stepFor(long joined, int completed) {
		if (this.sequence <= joined || completed > this.after) {
			// a consumer that completed a later generation was in the round
			return Step.DONE;
		}
		// one still completing an earlier generation would have a rejoin asked now undone by that generation's end
		return (completed < this.after) ? Step.WAIT : Step.JOIN;
	}

	enum Step {

		/** Join now. */
		JOIN,

		/** Ask again once the consumer has completed the generation the round began after. */
		WAIT,

		/** Nothing to do: the consumer joined the round, or was in it. */
		DONE

	}

}
