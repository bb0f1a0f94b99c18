package io.github.incrementalrebalance.assignor;

import io.github.incrementalrebalance.planner.Plan;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.AssignmentError;

/**
 * Told of every assignment the leader computes with learners, after Kafka validated it. Handed to the assignor as an
 * object in the Kafka Streams config under {@link #CONFIG}. Called on the leader's stream thread: must return fast and
 * never throw.
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

}
