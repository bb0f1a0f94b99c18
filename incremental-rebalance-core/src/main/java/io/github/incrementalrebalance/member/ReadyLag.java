package io.github.incrementalrebalance.member;

/**
 * The lag at which this member calls a learner of its ready: half of {@code acceptable.recovery.lag}, so that it is
 * still within the threshold when the leader reads the lag at the next assignment, a little later. The watcher asks
 * for the move at this lag, and the progress records, the tasks endpoint and the live page all say ready at it.
 *
 * @param records the largest lag of a ready learner
 */
record ReadyLag(long records) {

	static ReadyLag of(long acceptableRecoveryLag) {
		return new ReadyLag(acceptableRecoveryLag / 2);
	}

	boolean isReady(long lag) {
		return lag <= this.records;
	}

}
