package io.github.incrementalrebalance.control;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

import io.github.incrementalrebalance.assignor.LeaveRequest;

/**
 * {@code leave/<instance-id>}: an instance was asked to leave. Its tombstone cancels the request.
 *
 * @param instanceId the leaving instance
 * @param incarnation the start of the instance the request is for; for any other start it is stale
 * @param requestedAt when it was asked
 * @param deadline when it leaves even if its learners are not ready; empty to wait however long
 * @param source who asked (endpoint, command line, shutdown)
 */
public record LeaveRecord(String instanceId, String incarnation, Instant requestedAt, Optional<Instant> deadline,
		String source) implements ControlRecord {

	static final String KEY_PREFIX = "leave/";

	public LeaveRecord {
		Objects.requireNonNull(instanceId, "instanceId");
		Objects.requireNonNull(incarnation, "incarnation");
		Objects.requireNonNull(requestedAt, "requestedAt");
		Objects.requireNonNull(deadline, "deadline");
		Objects.requireNonNull(source, "source");
	}

	public static String keyOf(String instanceId) {
		return KEY_PREFIX + instanceId;
	}

	@Override
	public String key() {
		return keyOf(this.instanceId);
	}

	/**
	 * The request as the planner reads it.
	 * @return the leave request
	 */
	public LeaveRequest toLeaveRequest() {
		return new LeaveRequest(this.instanceId, this.incarnation, this.deadline);
	}

}
