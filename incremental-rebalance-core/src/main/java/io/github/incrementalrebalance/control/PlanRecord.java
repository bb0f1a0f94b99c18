package io.github.incrementalrebalance.control;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

import io.github.incrementalrebalance.planner.HandOverReason;
import io.github.incrementalrebalance.planner.Learner;
import io.github.incrementalrebalance.planner.MemberPlan;
import io.github.incrementalrebalance.planner.RebalancingMode;

/**
 * {@code plan/<instance-id>/<incarnation>}: what the last assignment planned for one start of a member. One record per
 * member, so the plan of a group of thousands of members never makes one large record; keyed by the start as well, so
 * that two live members with one instance id (a misconfiguration the plan reports) cannot overwrite each other's plan.
 * Records of version 1 are keyed {@code plan/<instance-id>}.
 *
 * @param instanceId the member
 * @param incarnation the start of the member the plan is for; a plan for an earlier start is stale
 * @param generation the group generation of the plan this record belongs to, as in {@link PlanEpoch}
 * @param active tasks it runs
 * @param learning its learners: task to lag when planned
 * @param ready its learners that were ready when planned
 * @param beingLearned tasks it runs while their learner warms up elsewhere
 * @param standby its standby replicas
 * @param leaving whether it asked to leave
 * @param leaveId the leave request the plan acts on; empty when not leaving, and in plans of version 1
 * @param handOver why it should leave the group now, if it should
 * @param mode the rebalancing mode the member runs; {@code incremental} in records that do not say
 */
public record PlanRecord(String instanceId, String incarnation, int generation, List<String> active,
		Map<String, Long> learning,
		List<String> ready, List<String> beingLearned, List<String> standby, boolean leaving,
		Optional<String> leaveId, Optional<HandOverReason> handOver, RebalancingMode mode) implements ControlRecord {

	static final String KEY_PREFIX = "plan/";

	public PlanRecord {
		Objects.requireNonNull(instanceId, "instanceId");
		Objects.requireNonNull(incarnation, "incarnation");
		active = List.copyOf(active);
		learning = Map.copyOf(learning);
		ready = List.copyOf(ready);
		beingLearned = List.copyOf(beingLearned);
		standby = List.copyOf(standby);
		Objects.requireNonNull(leaveId, "leaveId");
		Objects.requireNonNull(handOver, "handOver");
		Objects.requireNonNull(mode, "mode");
	}

	/**
	 * Whether this plan acts on a leave request: the one named, or, in a plan written without the echo (version 1),
	 * any leave of the member.
	 * @param leaveId the request
	 * @return true when the leader acted on it
	 */
	public boolean actsOn(String leaveId) {
		return this.leaving && this.leaveId.map(leaveId::equals).orElse(true);
	}

	/**
	 * The record of one member's plan.
	 * @param plan the member's plan
	 * @param generation the group generation the plan was adopted in
	 * @return the record
	 */
	public static PlanRecord of(MemberPlan plan, int generation) {
		Map<String, Long> learning = new TreeMap<>();
		plan.learning().values().forEach((learner) -> learning.put(learner.task().toString(), learner.lag()));
		return new PlanRecord(plan.instanceId(), plan.incarnation(), generation, names(plan.active()), learning,
				plan.learning().values().stream().filter(Learner::ready).map((l) -> l.task().toString()).toList(),
				names(plan.beingLearned()), names(plan.standby()), plan.leaving(), plan.leaveId(), plan.handOver(),
				plan.mode());
	}

	private static List<String> names(Collection<?> tasks) {
		return tasks.stream().map(Object::toString).toList();
	}

	/**
	 * The key of the plan of one start of a member.
	 * @param instanceId the member
	 * @param incarnation its start
	 * @return {@code plan/<instance-id>/<incarnation>}
	 */
	public static String keyOf(String instanceId, String incarnation) {
		return KEY_PREFIX + instanceId + "/" + incarnation;
	}

	@Override
	public String key() {
		return keyOf(this.instanceId, this.incarnation);
	}

}
