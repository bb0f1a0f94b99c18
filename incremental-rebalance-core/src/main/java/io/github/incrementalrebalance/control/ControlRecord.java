package io.github.incrementalrebalance.control;

/**
 * A record of the control topic: compacted, so the latest value per key is the state.
 */
public sealed interface ControlRecord permits LeaveRecord, PlanRecord, PlanEpoch, RejoinRequest, ProgressRecord {

	/**
	 * The record's key on the control topic.
	 * @return the key
	 */
	String key();

}
