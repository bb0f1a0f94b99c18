package io.github.incrementalrebalance.planner;

/**
 * How a member wants the group assigned ({@code incremental.rebalance.mode}).
 */
public enum RebalancingMode {

	/** The learner assignor: tasks move only once their state is warm on the new owner. */
	INCREMENTAL,

	/**
	 * Kafka's own assignor, used while a group rolls onto (or off) this library: while any member is upgrading, the
	 * planner places no learners (the seed's "switch only when everyone runs it").
	 */
	UPGRADING

}
