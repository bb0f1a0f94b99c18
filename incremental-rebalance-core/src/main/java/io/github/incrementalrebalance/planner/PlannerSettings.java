package io.github.incrementalrebalance.planner;

import java.time.Duration;
import java.util.Objects;

/**
 * The settings a plan depends on: Kafka's own ({@code acceptable.recovery.lag}, {@code max.warmup.replicas},
 * {@code num.standby.replicas}) and the learner keys.
 *
 * @param acceptableRecoveryLag a learner at or below this lag is ready
 * @param maxWarmupReplicas balancing learners placed at a time (drain learners are not capped)
 * @param numStandbyReplicas standby replicas per stateful task, besides learners
 * @param balancingFactor tolerated ratio between the most and the least loaded member, at least 1
 * @param learnerRebalance when a leaving member's tasks move
 * @param learnerProbeInterval the safety-net follow-up while learners exist
 * @param moveCost what moving a task off its owner costs when placing by the policy's costs: Kafka's
 * {@code rack.aware.assignment.non_overlap_cost}
 * @param balanceSubtopologies whether placing by cost also spreads each sub-topology's tasks over the members, as
 * Kafka's {@code rack.aware.assignment.strategy=balance_subtopology} does: no member holds more of a sub-topology's
 * tasks than its share of the bucket, rounded up
 * @param drainRestoreCap how many learners of drains restore at once, per member and in the group
 */
public record PlannerSettings(long acceptableRecoveryLag, int maxWarmupReplicas, int numStandbyReplicas,
		double balancingFactor, LearnerRebalance learnerRebalance, Duration learnerProbeInterval, long moveCost,
		boolean balanceSubtopologies, DrainRestoreCap drainRestoreCap) {

	/** Kafka's {@code acceptable.recovery.lag} default. */
	public static final long DEFAULT_ACCEPTABLE_RECOVERY_LAG = 10_000;

	/** The default tolerated imbalance. */
	public static final double DEFAULT_BALANCING_FACTOR = 2.0;

	/** The default safety-net follow-up while learners exist. */
	public static final Duration DEFAULT_LEARNER_PROBE_INTERVAL = Duration.ofSeconds(30);

	/** Kafka's high-availability assignor's {@code rack.aware.assignment.non_overlap_cost} default. */
	public static final long DEFAULT_MOVE_COST = 1;

	/** No cap on a drain's learners restoring at once (per member or in the group). */
	public static final int NO_CAP = Integer.MAX_VALUE;

	public PlannerSettings {
		Objects.requireNonNull(learnerRebalance, "learnerRebalance");
		Objects.requireNonNull(learnerProbeInterval, "learnerProbeInterval");
		Objects.requireNonNull(drainRestoreCap, "drainRestoreCap");
		if (acceptableRecoveryLag < 0) {
			throw new IllegalArgumentException("acceptableRecoveryLag must be >= 0, was " + acceptableRecoveryLag);
		}
		if (maxWarmupReplicas < 1) {
			throw new IllegalArgumentException("maxWarmupReplicas must be >= 1, was " + maxWarmupReplicas);
		}
		if (numStandbyReplicas < 0) {
			throw new IllegalArgumentException("numStandbyReplicas must be >= 0, was " + numStandbyReplicas);
		}
		if (!(balancingFactor >= 1.0) || Double.isInfinite(balancingFactor)) {
			throw new IllegalArgumentException("balancingFactor must be a number >= 1, was " + balancingFactor);
		}
		if (moveCost < 0) {
			throw new IllegalArgumentException("moveCost must be >= 0, was " + moveCost);
		}
		if (learnerProbeInterval.isNegative() || learnerProbeInterval.isZero()) {
			throw new IllegalArgumentException("learnerProbeInterval must be positive, was " + learnerProbeInterval);
		}
	}

	/**
	 * Kafka's defaults and the learner defaults.
	 * @return the default settings
	 */
	public static PlannerSettings defaults() {
		return new PlannerSettings(DEFAULT_ACCEPTABLE_RECOVERY_LAG, 2, 0, DEFAULT_BALANCING_FACTOR,
				LearnerRebalance.CONSERVATIVE, DEFAULT_LEARNER_PROBE_INTERVAL, DEFAULT_MOVE_COST, false,
				DrainRestoreCap.NONE);
	}

	/**
	 * These settings with a cap on a drain's learners restoring at once.
	 * @param cap the cap
	 * @return the settings
	 */
	public PlannerSettings withDrainRestoreCap(DrainRestoreCap cap) {
		return new PlannerSettings(this.acceptableRecoveryLag, this.maxWarmupReplicas, this.numStandbyReplicas,
				this.balancingFactor, this.learnerRebalance, this.learnerProbeInterval, this.moveCost,
				this.balanceSubtopologies, cap);
	}

}
