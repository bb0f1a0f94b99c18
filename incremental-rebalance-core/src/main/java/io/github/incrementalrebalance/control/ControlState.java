package io.github.incrementalrebalance.control;

import java.util.Optional;

/**
 * The control topic's latest records as a member reads them.
 */
public interface ControlState {

	/**
	 * The leave request of an instance.
	 * @param instanceId the instance
	 * @return its leave record, if it is asked to leave
	 */
	Optional<LeaveRecord> leaveRecord(String instanceId);

	/**
	 * What the last plan says of an instance.
	 * @param instanceId the instance
	 * @return its plan record, if a leader published one
	 */
	Optional<PlanRecord> plan(String instanceId);

	/**
	 * The last plan's epoch.
	 * @return the epoch, if a leader published a plan
	 */
	Optional<PlanEpoch> planEpoch();

}
