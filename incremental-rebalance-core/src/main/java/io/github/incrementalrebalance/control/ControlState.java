package io.github.incrementalrebalance.control;

import java.util.List;
import java.util.Optional;

import io.github.incrementalrebalance.planner.StartId;

/**
 * The control topic's latest records as a member reads them.
 */
public interface ControlState {

	/**
	 * The leave record of one start of an instance.
	 * @param instanceId the instance
	 * @param incarnation its start
	 * @return its leave record, if that start was asked to leave
	 */
	Optional<LeaveRecord> leaveRecord(String instanceId, String incarnation);

	/**
	 * What the current plan says of one start of an instance.
	 * @param instanceId the instance
	 * @param incarnation its start
	 * @return its plan record, if the current plan has one for that start
	 */
	Optional<PlanRecord> plan(String instanceId, String incarnation);

	/**
	 * The current plan: one record per member start.
	 * @return its records
	 */
	List<PlanRecord> plans();

	/**
	 * The last plan's epoch.
	 * @return the epoch, if a leader published a plan
	 */
	Optional<PlanEpoch> planEpoch();

	/**
	 * The learners' progress records of the members of the current plan.
	 * @return the records
	 */
	List<ProgressRecord> progress();

	/**
	 * The progress record of one start of a member, whether or not a plan names it (under the streams protocol no
	 * plan does).
	 * @param start the start
	 * @return its record, if it wrote one
	 */
	Optional<ProgressRecord> progressOf(StartId start);

}
