package io.github.incrementalrebalance.planner;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * An instance's announcement that it will leave: it takes no new work and hands its tasks over first.
 *
 * @param instanceId the leaving instance
 * @param incarnation the start of that instance the request is for; a request for an earlier start is stale
 * @param leaveId the request's identity, echoed in the member's plan so it knows which leave was acted on
 * @param deadline when it leaves even if its learners are not ready, on the requester's clock; for people only: the
 * planner never compares it with its own clock (the member keeps its deadline and leaves when it passes)
 */
public record LeaveRequest(String instanceId, String incarnation, String leaveId, Optional<Instant> deadline) {

	public LeaveRequest {
		Objects.requireNonNull(instanceId, "instanceId");
		Objects.requireNonNull(incarnation, "incarnation");
		Objects.requireNonNull(leaveId, "leaveId");
		Objects.requireNonNull(deadline, "deadline");
	}

	/**
	 * Whether this request is for a member, as it is now.
	 * @param member the member
	 * @return true when the instance id and the incarnation match
	 */
	public boolean isFor(GroupMember member) {
		return this.instanceId.equals(member.instanceId()) && this.incarnation.equals(member.incarnation());
	}

}
