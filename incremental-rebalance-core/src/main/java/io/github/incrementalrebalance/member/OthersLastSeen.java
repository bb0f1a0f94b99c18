package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import io.github.incrementalrebalance.control.PlanRecord;
import io.github.incrementalrebalance.planner.MemberPlan;

/**
 * When this member last read a current plan in which another member could take its tasks (one not leaving). A plan
 * that hands a leaving member over with no other member can come from a round the group held while its other members
 * were fenced and rejoining (sessions that timed out under load, a broker restart): they come back with their state,
 * so such a hand-over is held for the group's session timeout after they were last in the plan, the time the group
 * itself gives a silent member before it counts it gone. No I/O: the drain hands in the plan under its lock.
 */
final class OthersLastSeen {

	private final String instanceId;

	private final Duration grace;

	private Set<String> others = Set.of();

	/** On the elapsed clock; null until a plan with another member was read. */
	private Instant seenAt;

	/**
	 * @param instanceId this member's instance id
	 * @param grace how long a hand-over with no other member is held after another member was last in the plan
	 */
	OthersLastSeen(String instanceId, Duration grace) {
		this.instanceId = instanceId;
		this.grace = grace;
	}

	/**
	 * Note who the current plan holds: a member stays in the group for as long as a plan that holds it is current.
	 * @param now the member's elapsed clock
	 * @param plans the current plan's records
	 */
	void observe(Instant now, Collection<PlanRecord> plans) {
		Set<String> present = plans.stream()
			.map(PlanRecord::plan)
			.filter((plan) -> !plan.leaving() && !plan.instanceId().equals(this.instanceId))
			.map(MemberPlan::instanceId)
			.collect(Collectors.toCollection(TreeSet::new));
		if (!present.isEmpty()) {
			this.others = present;
			this.seenAt = now;
		}
	}

	/**
	 * Why a hand-over with no other member is held now, while it is.
	 * @param now the member's elapsed clock
	 * @return the reason, empty once no other member was in a plan for the grace (or never was)
	 */
	Optional<String> hold(Instant now) {
		if (this.seenAt == null) {
			return Optional.empty();
		}
		Duration since = Duration.between(this.seenAt, now);
		if (since.compareTo(this.grace) >= 0) {
			return Optional.empty();
		}
		return Optional.of("the plan gives its tasks to no other member, but " + this.others + " were in the plan "
				+ since.toMillis() + " ms ago and may be rejoining: the hand-over waits for them up to "
				+ this.grace.toMillis() + " ms (the group's session.timeout.ms)");
	}

}
