package io.github.incrementalrebalance.member;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.github.incrementalrebalance.identity.MemberIdentity;
import io.github.incrementalrebalance.planner.LearnerRebalance;
import io.github.incrementalrebalance.control.ControlState;
import io.github.incrementalrebalance.control.PlanRecord;
import org.apache.kafka.streams.processor.TaskId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the learners the plan gave this member and asks for a rebalance when they are ready, so a task moves as
 * soon as its state is warm instead of at the leader's next follow-up. Eager: when one learner is ready;
 * conservative: when all are. A learner counts as ready at half of {@code acceptable.recovery.lag}, so it is still
 * within the threshold when the leader reads its lag. Only learners the plan does not show ready yet count: a ready
 * learner whose move waits (for the leaving member's other learners) needs no more rebalances. One trigger per plan,
 * at most one per spacing.
 */
final class LearnerWatcher {

	private static final Logger logger = LoggerFactory.getLogger(LearnerWatcher.class);

	private final MemberIdentity identity;

	private final ControlState reader;

	private final Supplier<Map<TaskId, Long>> localLags;

	private final RebalanceTrigger trigger;

	private final long readyLag;

	private final LearnerRebalance learnerRebalance;

	private final Duration spacing;

	private final Clock clock;

	/** The generation of the plan whose learners this member last asked a rebalance for. */
	private OptionalInt triggeredFor = OptionalInt.empty();

	private Instant lastTrigger = Instant.EPOCH;

	LearnerWatcher(MemberIdentity identity, ControlState reader, Supplier<Map<TaskId, Long>> localLags,
			RebalanceTrigger trigger, long acceptableRecoveryLag, LearnerRebalance learnerRebalance, Duration spacing,
			Clock clock) {
		this.identity = identity;
		this.reader = reader;
		this.localLags = localLags;
		this.trigger = trigger;
		this.readyLag = acceptableRecoveryLag / 2;
		this.learnerRebalance = learnerRebalance;
		this.spacing = spacing;
		this.clock = clock;
	}

	void check() {
		Optional<PlanRecord> plan = this.reader.plan(this.identity.instanceId(), this.identity.incarnation());
		if (plan.isEmpty() || plan.get().plan().learning().isEmpty()
				|| this.triggeredFor.equals(OptionalInt.of(plan.get().generation()))) {
			return;
		}
		Instant now = this.clock.instant();
		if (now.isBefore(this.lastTrigger.plus(this.spacing))) {
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
			.filter((task) -> lags.containsKey(task) && lags.get(task) <= this.readyLag)
			.collect(Collectors.toSet());
		boolean fire = (this.learnerRebalance == LearnerRebalance.EAGER) ? !ready.isEmpty()
				: !ready.isEmpty() && ready.size() + readyInPlan.size() == learners.size();
		if (fire) {
			logger.info("Learners ready {} of {}: asking for a rebalance", ready, learners);
			this.trigger.request("incremental-rebalance: learners ready " + ready);
			this.triggeredFor = OptionalInt.of(plan.get().generation());
			this.lastTrigger = now;
		}
	}

}
