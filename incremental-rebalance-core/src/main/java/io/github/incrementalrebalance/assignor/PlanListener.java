package io.github.incrementalrebalance.assignor;

import io.github.incrementalrebalance.planner.Plan;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.AssignmentError;

/**
 * Told of every assignment the leader computes, after Kafka validated it: its learner plan, or that it has none. Handed
 * to the assignor as an object in the Kafka Streams config under {@link #CONFIG}. Called on the leader's stream thread:
 * must return fast and never throw.
 */
@FunctionalInterface
public interface PlanListener {

	/** Streams config key of the listener object. */
	String CONFIG = "incremental.rebalance.plan.listener";

	/**
	 * An assignment was computed.
	 * @param plan the plan, or the plan of the fallback when planning failed
	 * @param error Kafka's verdict on the assignment
	 */
	void onPlan(Plan plan, AssignmentError error);

	/**
	 * An assignment was computed without a learner plan (planning failed, Kafka's sticky assignment went out): a plan
	 * held from an earlier round is not this round's.
	 */
	default void onNoPlan() {
	}

}
