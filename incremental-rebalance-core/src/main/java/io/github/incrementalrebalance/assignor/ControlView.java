package io.github.incrementalrebalance.assignor;

import java.util.List;
import java.util.Optional;

import io.github.incrementalrebalance.planner.LeaveRequest;

/**
 * What the leader knows from the control topic when it assigns: the leave requests. Handed to the assignor as an
 * object in the Kafka Streams config under {@link #CONFIG}, since Kafka makes a new assignor per rebalance.
 */
public interface ControlView {

	/** Streams config key of the control view object. */
	String CONFIG = "incremental.rebalance.control.view";

	/**
	 * The leave requests, current as of the last record read; must not block.
	 * @return the requests
	 */
	List<LeaveRequest> leaveRequests();

	/**
	 * Why the view cannot be planned with, if it cannot (not read yet, unreadable): the assignor then falls back to
	 * Kafka's assignment rather than miss a leave request. Must not block.
	 * @return the reason, empty when the view is current
	 */
	default Optional<String> unavailable() {
		return Optional.empty();
	}

	/**
	 * Why the view, read to its end before, may miss what was written since, if it may: the topic has not been
	 * readable for its timeout. The leader plans from it but hands no member over meanwhile, since a cancel may be
	 * missing from it. Must not block.
	 * @return the reason, empty while the topic is read
	 */
	default Optional<String> outOfDate() {
		return Optional.empty();
	}

}
