package io.github.incrementalrebalance.planner;

/**
 * How many learners of drains may restore at once, on one member and in the whole group (ready learners do not
 * count): a large drain or rollout restores in waves, so that it does not saturate one member's disk nor the
 * brokers' fetch. {@link PlannerSettings#NO_CAP} for either means no cap there.
 *
 * @param perMember the most restoring at once on one member, at least 1
 * @param inGroup the most restoring at once in the group, at least 1
 */
public record DrainRestoreCap(int perMember, int inGroup) {

	/** As many as the drains need. */
	public static final DrainRestoreCap NONE = new DrainRestoreCap(PlannerSettings.NO_CAP, PlannerSettings.NO_CAP);

	public DrainRestoreCap {
		if (perMember < 1) {
			throw new IllegalArgumentException("perMember must be >= 1, was " + perMember);
		}
		if (inGroup < 1) {
			throw new IllegalArgumentException("inGroup must be >= 1, was " + inGroup);
		}
	}

	/**
	 * Whether one more learner may restore.
	 * @param onItsMember the learners of drains restoring on its member
	 * @param inTheGroup those restoring in the whole group
	 * @return true while both are below their cap
	 */
	boolean admitsOneMore(int onItsMember, int inTheGroup) {
		return onItsMember < this.perMember && inTheGroup < this.inGroup;
	}

}
