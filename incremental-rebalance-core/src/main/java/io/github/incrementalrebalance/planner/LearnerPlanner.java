package io.github.incrementalrebalance.planner;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Plans one assignment with learners: a stateful task moves only once its state is warm on its new owner; a leaving
 * member hands its tasks over to warm learners before it goes; work is taken from the most loaded members until the
 * group is within the balancing factor. Pure: a {@link Group} in, a {@link Plan} out, nothing remembered.
 * <p>
 * The steps, each a class of its own with one job, run in this order on the round's state ({@link RoundState}): keep
 * running tasks where they run, drain leaving members ({@link Drains}), move tasks off members the policy excludes
 * ({@link ExcludedMembers}), place orphans, where the second round of a move lands ({@link Orphans}), balance
 * ({@link Balancing}) and place by cost ({@link CostPlacement}), stateless tasks first, place standbys
 * ({@link Standbys}), schedule the follow-up. Every step asks the {@link PlacementPolicy} which members may run a task
 * and, among those, prefers the cheaper ones; the rules that keep a task from coming back to the member it just left
 * are stated once, in {@link HandBackRules}.
 */
public final class LearnerPlanner {

	/** How soon to retry after a round whose end offsets were unknown. */

	private final PlacementPolicy policy;

	/**
	 * A planner that places by warmth and load alone: every member may run every task, at no cost.
	 */
	public LearnerPlanner() {
		this(new RackAwarePlacementPolicy());
	}

	/**
	 * A planner that asks a policy where tasks may run and what that costs.
	 * @param policy the placement policy
	 */
	public LearnerPlanner(PlacementPolicy policy) {
		this.policy = Objects.requireNonNull(policy, "policy");
	}

	/**
	 * Plan an assignment.
	 * @param group what Kafka and the control topic report this round
	 * @return the plan
	 */
	public Plan plan(Group group) {
		RoundState round = new RoundState(group, this.policy);
		round.keepRunningTasks();
		new Drains(round).apply();
		if (!round.mixedModes && round.policyApplies) {
			new ExcludedMembers(round).apply();
		}
		new Orphans(round).apply();
		if (!round.mixedModes) {
			Balancing balancing = new Balancing(round);
			CostPlacement costPlacement = new CostPlacement(round);
			balancing.apply(false);
			costPlacement.apply(false);
			if (!round.unknownOffsets) {
				balancing.apply(true);
				costPlacement.apply(true);
			}
		}
		Standbys standbys = new Standbys(round);
		if (round.unknownOffsets) {
			standbys.keepLearnersWhileOffsetsAreUnknown();
		}
		standbys.apply();
		return round.plan(followUp(round));
	}

	/**
	 * Learners get a safety-net follow-up (members trigger the fast path themselves); a round without end offsets, or
	 * one that held a leaving member's hand-over, is retried after the group's retry (soon, longer while rounds in a
	 * row cannot do their work: nobody asks for the round the hand-over waits for); deferred balancing at once. A
	 * leaving member's deadline is not the leader's: the member keeps it on its own clock and leaves the group when it
	 * passes, and its tasks are then orphans.
	 */
	private static Optional<Instant> followUp(RoundState round) {
		List<Instant> candidates = new ArrayList<>();
		Instant now = round.group.now();
		if (!round.learnerAt.isEmpty()) {
			candidates.add(now.plus(round.group.learnerProbe()));
		}
		if (round.unknownOffsets || (round.handOversHeld && !round.leaving.isEmpty())) {
			candidates.add(now.plus(round.group.retry()));
		}
		if (round.balanceDeferred || round.costDeferred) {
			candidates.add(now);
		}
		return candidates.stream().min(Comparator.naturalOrder());
	}

}
