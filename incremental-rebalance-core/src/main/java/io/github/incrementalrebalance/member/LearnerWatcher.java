package io.github.incrementalrebalance.member;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.github.incrementalrebalance.config.Backoff;
import io.github.incrementalrebalance.control.ControlState;
import io.github.incrementalrebalance.control.PlanRecord;
import io.github.incrementalrebalance.identity.MemberIdentity;
import io.github.incrementalrebalance.planner.Learner;
import io.github.incrementalrebalance.planner.LearnerRebalance;
import org.apache.kafka.streams.processor.TaskId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the learners the plan gave this member and asks for a rebalance when they are ready, so a task moves as
 * soon as its state is warm instead of at the leader's next follow-up. Eager: when one learner is ready;
 * conservative: when all are. A learner counts as ready at the {@link ReadyLag}, so it is still within the threshold
 * when the leader reads its lag. Only learners the plan does not show ready yet count: a ready
 * learner whose move waits (for the leaving member's other learners) needs no more rebalances. One trigger per plan,
 * at most one per spacing.
 * <p>
 * The leader judges a learner on the lag it reads at the assignment, later than this member's check: while the
 * changelog is written about as fast as the learner restores, the leader can read it not ready round after round.
 * So each ask a later plan leaves unanswered doubles the time until the next, up to the leader's learner probe
 * interval (it probes its learners that often anyway); and this member learns by how much the leader's lag exceeded
 * its own, asking again after the plain spacing once its lag is that much lower. The back-off bounds the rounds that
 * move nothing; it never waits on the lag alone, which may never get that low (the leader read a backlog the old
 * owner has since worked off). A round that promotes what it asked for resets both.
 * <p>
 * The leader publishes a generation's plan once its own consumer completed that generation, so this member may
 * complete it before the plan is readable. Until then the plan read is an older one, and a learner it shows not
 * ready may be ready in the plan on its way: the watcher waits for that plan, for at most the spacing (a leader that
 * publishes none is not waited for longer), rather than start a round that moves nothing and holds every member,
 * those handing over to leave among them. Called on the member's check thread.
 */
final class LearnerWatcher {

	private static final Logger logger = LoggerFactory.getLogger(LearnerWatcher.class);

	private final MemberIdentity identity;

	private final ControlState reader;

	private final Supplier<Map<TaskId, Long>> localLags;

	private final RebalanceTrigger trigger;

	private final ReadyLag readyLag;

	private final LearnerRebalance learnerRebalance;

	private final Duration spacing;

	/** The spacing while asks go unanswered: doubling from the plain spacing up to the leader's probe interval. */
	private final Backoff unansweredSpacing;

	private final Clock clock;

	/** The generation of the plan whose learners this member last asked a rebalance for. */
	private OptionalInt triggeredFor = OptionalInt.empty();

	private Instant lastTrigger = Instant.EPOCH;

	/** The local lags of the learners it last asked for, until a later plan answers. */
	private Map<TaskId, Long> asked = Map.of();

	/** By how much the leader read a learner's lag above this member's, as the last unanswered ask showed. */
	private final Map<TaskId, Long> leaderAhead = new HashMap<>();

	/** How many asks in a row a later plan did not answer. */
	private int unanswered;

	/** The newest generation this member completed whose plan it has not read yet, and since when it waits for it. */
	private int awaitedGeneration = -1;

	private Instant awaitedSince = Instant.EPOCH;

	/**
	 * @param spacing the least time between two asks
	 * @param longestSpacing the most the spacing grows to while asks go unanswered: the leader's probe interval
	 * @param clock elapsed time
	 */
	LearnerWatcher(MemberIdentity identity, ControlState reader, Supplier<Map<TaskId, Long>> localLags,
			RebalanceTrigger trigger, long acceptableRecoveryLag, LearnerRebalance learnerRebalance, Duration spacing,
			Duration longestSpacing, Clock clock) {
		this.identity = identity;
		this.reader = reader;
		this.localLags = localLags;
		this.trigger = trigger;
		this.readyLag = ReadyLag.of(acceptableRecoveryLag);
		this.learnerRebalance = learnerRebalance;
		this.spacing = spacing;
		this.unansweredSpacing = Backoff.doubling(spacing,
				(longestSpacing.compareTo(spacing) > 0) ? longestSpacing : spacing);
		this.clock = clock;
	}

	void check() {
		Optional<PlanRecord> plan = this.reader.plan(this.identity.instanceId(), this.identity.incarnation());
		if (plan.isEmpty()) {
			return;
		}
		Instant now = this.clock.instant();
		learnFrom(plan.get());
		if (plan.get().plan().learning().isEmpty()
				|| this.triggeredFor.equals(OptionalInt.of(plan.get().generation()))) {
			return;
		}
		if (now.isBefore(this.lastTrigger.plus(this.spacing)) || planOnItsWay(plan.get(), now)) {
			return;
		}
		Set<TaskId> learners = plan.get().plan().learning().keySet();
		Set<TaskId> readyInPlan = plan.get().plan().readyLearners();
		if (readyInPlan.containsAll(learners)) {
			return;
		}
		Map<TaskId, Long> lags = this.localLags.get();
		Set<TaskId> ready = learners.stream()
			.filter((task) -> !readyInPlan.contains(task))
			.filter((task) -> lags.containsKey(task) && this.readyLag.isReady(lags.get(task)))
			.collect(Collectors.toSet());
		boolean fire = enough(ready, readyInPlan.size(), learners.size());
		if (fire && now.isBefore(this.lastTrigger.plus(currentSpacing()))) {
			// backing off: ask sooner only for what the leader should read ready this time
			Set<TaskId> readyToTheLeader = ready.stream()
				.filter((task) -> this.readyLag.isReady(lags.get(task) + this.leaderAhead.getOrDefault(task, 0L)))
				.collect(Collectors.toSet());
			fire = enough(readyToTheLeader, readyInPlan.size(), learners.size());
		}
		if (fire) {
			logger.info("Learners ready {} of {}: asking for a rebalance", ready, learners);
			this.trigger.request(RebalanceCause.LEARNERS_READY, "incremental-rebalance: learners ready " + ready);
			this.triggeredFor = OptionalInt.of(plan.get().generation());
			this.lastTrigger = now;
			this.asked = ready.stream().collect(Collectors.toMap((task) -> task, lags::get));
		}
	}

	/**
	 * Read the plan that answers the last ask, once one does: it promoted the learners asked for, or shows how far
	 * the leader's view is behind this member's.
	 */
	private void learnFrom(PlanRecord plan) {
		if (this.asked.isEmpty() || this.triggeredFor.isEmpty()
				|| plan.generation() <= this.triggeredFor.getAsInt()) {
			return;
		}
		Map<TaskId, Learner> learning = plan.plan().learning();
		Map<TaskId, Long> behind = new HashMap<>();
		this.asked.forEach((task, ownLag) -> {
			Learner learner = learning.get(task);
			if (learner != null && !learner.ready()) {
				behind.put(task, Math.max(0, learner.lag() - ownLag));
			}
		});
		this.asked = Map.of();
		if (behind.isEmpty()) {
			this.unanswered = 0;
			this.leaderAhead.clear();
			return;
		}
		this.unanswered++;
		this.leaderAhead.putAll(behind);
		logger.info("The plan of generation {} shows learners {} not ready: the leader read their lag higher than this "
				+ "member did, by {} (its changelog is written about as fast as it restores). Asking again in {}, or "
				+ "sooner once this member's lag is that much lower", plan.generation(), behind.keySet(), behind,
				currentSpacing());
	}

	/**
	 * Whether this member completed a later generation than the plan read, within the spacing: that generation's plan
	 * answers what this one would ask.
	 */
	private boolean planOnItsWay(PlanRecord plan, Instant now) {
		int completed = this.trigger.observedGeneration();
		if (completed <= plan.generation()) {
			return false;
		}
		if (completed != this.awaitedGeneration) {
			this.awaitedGeneration = completed;
			this.awaitedSince = now;
		}
		return now.isBefore(this.awaitedSince.plus(this.spacing));
	}

	/** Eager: one learner ready is enough; conservative: all of them, with those the plan shows ready. */
	private boolean enough(Set<TaskId> ready, int readyInPlan, int learners) {
		return (this.learnerRebalance == LearnerRebalance.EAGER) ? !ready.isEmpty()
				: !ready.isEmpty() && ready.size() + readyInPlan == learners;
	}

	private Duration currentSpacing() {
		return this.unansweredSpacing.pauseAfter(this.unanswered + 1L);
	}

}
