package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import io.github.incrementalrebalance.config.Backoff;
import io.github.incrementalrebalance.control.ControlState;
import io.github.incrementalrebalance.control.PlanEpoch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether one leave has been answered, and what it does until then: it asks for a rebalance again, backing off from
 * 1 s to 8 s; once its acknowledgement bound passed unanswered it either keeps asking, backing off up to that bound,
 * and says why (a slow group is no reason for a cold move), or, with
 * {@code incremental.rebalance.leave.unanswered=leave}, gives up. One per leave, on
 * the member's own clock from when it read the request. Called under the drain's lock; {@link #waiting()} from any
 * thread.
 */
final class LeaveAcknowledgement {

	private static final Logger logger = LoggerFactory.getLogger(LeaveAcknowledgement.class);

	private static final Backoff RETRY = Backoff.doubling(Duration.ofSeconds(1), Duration.ofSeconds(8));

	private final String leaveId;

	private final String instanceId;

	/** When the member read the request, or last found its answer gone; the acknowledgement bound counts from it. */
	private Instant seenAt;

	private int generationAtRequest;

	private final LeaveBounds bounds;

	private Backoff retry = RETRY;

	private Instant nextRetry;

	private boolean confirmed;

	private volatile Optional<String> waiting = Optional.empty();

	/**
	 * @param leaveId the leave
	 * @param instanceId the member leaving
	 * @param seenAt when the member read the request, on its clock
	 * @param generationAtRequest the last generation the member had completed then
	 * @param bounds how long it waits for an answer, and what it does after
	 */
	LeaveAcknowledgement(String leaveId, String instanceId, Instant seenAt, int generationAtRequest,
			LeaveBounds bounds) {
		this.leaveId = leaveId;
		this.instanceId = instanceId;
		this.seenAt = seenAt;
		this.generationAtRequest = generationAtRequest;
		this.bounds = bounds;
		this.nextRetry = seenAt.plus(this.retry.pause());
	}

	/**
	 * A plan acting on this leave was read: it is answered.
	 */
	void confirm() {
		this.confirmed = true;
		this.waiting = Optional.empty();
	}

	/**
	 * The plan of a later generation no longer acts on this leave, which an earlier one had answered (a new leader
	 * that did not read it, a plan computed from a view without it): the leave is unanswered again, asks the group
	 * again now, and says so past its bound, instead of waiting silently for a hand-over nobody plans.
	 * @param now the member's time
	 * @param trigger the member's rebalance trigger
	 * @param generation the generation of the plan that no longer acts on it
	 */
	void lost(Instant now, RebalanceTrigger trigger, int generation) {
		if (!this.confirmed) {
			return;
		}
		logger.warn("The plan of generation {} no longer acts on leave {} of {}, which an earlier plan had answered: "
				+ "asking the group again", generation, this.leaveId, this.instanceId);
		this.confirmed = false;
		this.seenAt = now;
		this.generationAtRequest = trigger.observedGeneration();
		this.retry = RETRY;
		this.nextRetry = now;
	}

	/**
	 * Follow an unanswered leave: ask again when due, and past the bound wait on (saying why) or give up.
	 * @param now the member's time
	 * @param trigger the member's rebalance trigger
	 * @param reader the control topic's state
	 * @return why the leave ends without learners now, empty while it goes on
	 */
	Optional<DrainOutcome.Reason> check(Instant now, RebalanceTrigger trigger, ControlState reader) {
		if (this.confirmed) {
			return Optional.empty();
		}
		if (!now.isBefore(this.seenAt.plus(this.bounds.acknowledgement()))) {
			boolean rebalancedWithoutPlan = rebalancedWithoutPlan(trigger, reader);
			if (this.bounds.leaveUnanswered()) {
				return Optional.of(rebalancedWithoutPlan ? DrainOutcome.Reason.NO_LEARNER_PLAN
						: DrainOutcome.Reason.UNANSWERED);
			}
			waitFor(rebalancedWithoutPlan ? "the leader published no learner plan for generation "
					+ trigger.observedGeneration() + ", which completed after the request"
					: "no plan has acknowledged it");
			// a group that did not answer within its own rebalance timeout is not helped by a rebalance every 8 s
			this.retry = this.retry.upTo(this.bounds.acknowledgement());
		}
		if (!now.isBefore(this.nextRetry)) {
			trigger.request(RebalanceCause.LEAVE, "incremental-rebalance: " + this.instanceId + " is leaving (retry)");
			this.retry = this.retry.next();
			this.nextRetry = now.plus(this.retry.pause());
		}
		return Optional.empty();
	}

	/**
	 * Why this leave waits for the group beyond its acknowledgement bound, while it does.
	 * @return the reason, empty while answered in time
	 */
	Optional<String> waiting() {
		return this.waiting;
	}

	private void waitFor(String why) {
		Optional<String> now = Optional.of("unanswered for more than " + this.bounds.acknowledgement() + ": " + why
				+ "; still asking");
		if (this.waiting.isEmpty()) {
			logger.warn("The leave {} of {} is {}. A leave without a deadline is not turned into a cold move by a slow "
					+ "group: cancel it, give it a timeout, or set incremental.rebalance.leave.unanswered=leave to "
					+ "leave without learners once incremental.rebalance.leave.acknowledgement.timeout.ms passed",
					this.leaveId, this.instanceId, now.get());
		}
		this.waiting = now;
	}

	/**
	 * A rebalance completed after the leave request, yet the plan read is of an earlier generation: the leader runs
	 * without learners (Kafka's assignor, its fallback after a planning error) or cannot write its plans.
	 */
	private boolean rebalancedWithoutPlan(RebalanceTrigger trigger, ControlState reader) {
		int completed = trigger.observedGeneration();
		int planned = reader.planEpoch().map(PlanEpoch::generation).orElse(PlanEpoch.UNKNOWN_GENERATION);
		return completed > this.generationAtRequest && planned < completed;
	}

}
