package io.github.incrementalrebalance.assignor;

import java.util.List;

import io.github.incrementalrebalance.planner.MemberPlan;

/**
 * The plan of the generation before the one being assigned, as the leader knows it: the plan it published itself, or
 * the one it read from the control topic. The planner places the orphans of the previous round's moves where that
 * plan sent them. Handed to the assignor as an object in the Kafka Streams config under {@link #CONFIG}, since Kafka
 * makes a new assignor per rebalance and the planner keeps nothing between rounds.
 */
@FunctionalInterface
public interface PreviousPlan {

	/** Streams config key of the previous plan object. */
	String CONFIG = "incremental.rebalance.previous.plan";

	/**
	 * The previous generation's plan, one per member start. Empty when it is not known for sure: a plan of an earlier
	 * generation would send orphans back where a later move took them from. Must not block.
	 * @return the plan
	 */
	List<MemberPlan> members();

}
