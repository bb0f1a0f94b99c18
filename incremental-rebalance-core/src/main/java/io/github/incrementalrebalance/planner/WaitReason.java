package io.github.incrementalrebalance.planner;

/**
 * Why a wanted move of a task was not made this round.
 */
public enum WaitReason {

	/** Its learner is above {@code acceptable.recovery.lag}. */
	LEARNER_NOT_READY,

	/**
	 * Conservative drain: its learner is ready, the leaving member's other learners are not; or a move to a cheaper
	 * member that waits for the learners of the moves it makes room for.
	 */
	WAITING_FOR_OTHER_LEARNERS,

	/** {@code max.warmup.replicas} balancing learners are already warming up. */
	WARMUP_CAP,

	/**
	 * A leaving member's task whose learner waits for a place: its target, or the group, already restores as many
	 * learners of drains as {@code incremental.rebalance.drain.restores.per.member} or
	 * {@code incremental.rebalance.drain.restores.in.group} allows.
	 */
	DRAIN_RESTORE_CAP,

	/** The leader could not read changelog end offsets this round (lag -3): no stateful task moves. */
	UNKNOWN_OFFSETS,

	/**
	 * The leave requests may be out of date (the control topic has not been readable for its timeout): a leaving
	 * member's tasks stay until the leader reads it again, since the leave may have been cancelled.
	 */
	LEAVE_REQUESTS_OUT_OF_DATE

}
