package io.github.incrementalrebalance.planner;

import java.util.Objects;

/**
 * One start of a member: its instance id, which outlives restarts, and the incarnation of this start. Plans, leaves
 * and progress are kept per start, so that a restarted member is never taken for the one before it.
 *
 * @param instanceId the member
 * @param incarnation its start
 */
public record StartId(String instanceId, String incarnation) {

	public StartId {
		Objects.requireNonNull(instanceId, "instanceId");
		Objects.requireNonNull(incarnation, "incarnation");
	}

	/**
	 * @return {@code <instance-id>/<incarnation>}, as control records' keys end
	 */
	@Override
	public String toString() {
		return this.instanceId + "/" + this.incarnation;
	}

}
