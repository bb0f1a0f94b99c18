package io.github.incrementalrebalance.control;

import java.util.Objects;

import io.github.incrementalrebalance.planner.MemberPlan;
import io.github.incrementalrebalance.planner.StartId;

/**
 * {@code plan/<instance-id>/<incarnation>}: what the last assignment planned for one start of a member. One record per
 * member, so the plan of a group of thousands of members never makes one large record; keyed by the start as well, so
 * that two live members with one instance id (a misconfiguration the plan reports) cannot overwrite each other's plan.
 *
 * @param plan the member's plan, as the leader's planner made it
 * @param generation the group generation of the plan this record belongs to, as in {@link PlanEpoch}
 */
public record PlanRecord(MemberPlan plan, int generation) implements ControlRecord {

	static final String KEY_PREFIX = "plan/";

	public PlanRecord {
		Objects.requireNonNull(plan, "plan");
	}

	/**
	 * The member the plan is for.
	 * @return its instance id
	 */
	public String instanceId() {
		return this.plan.instanceId();
	}

	/**
	 * The start of the member the plan is for; a plan for an earlier start is stale.
	 * @return its incarnation
	 */
	public String incarnation() {
		return this.plan.incarnation();
	}

	/**
	 * The key of the plan of one start of a member.
	 * @param instanceId the member
	 * @param incarnation its start
	 * @return {@code plan/<instance-id>/<incarnation>}
	 */
	public static String keyOf(String instanceId, String incarnation) {
		return KEY_PREFIX + new StartId(instanceId, incarnation);
	}

	@Override
	public String key() {
		return keyOf(instanceId(), incarnation());
	}

}
