package io.github.incrementalrebalance.planner;

/**
 * When a leaving member's tasks move to their learners ({@code incremental.rebalance.drain.hand.over}).
 */
public enum LearnerRebalance {

	/** Each task moves as soon as its learner is ready: more rebalances, less double processing. */
	EAGER,

	/** The tasks move together, through one hand-over, once every learner is ready: fewest rebalances. */
	CONSERVATIVE

}
