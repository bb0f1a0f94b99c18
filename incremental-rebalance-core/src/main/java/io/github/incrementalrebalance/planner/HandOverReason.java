package io.github.incrementalrebalance.planner;

/**
 * Why a leaving member is told to leave the group now: one rebalance then hands all its tasks over.
 */
public enum HandOverReason {

	/** Every stateful task it still runs has a ready learner (or it runs none). */
	LEARNERS_READY,

	/** No other member could take its tasks (scale to zero). */
	NO_OTHER_MEMBER,

	/** A member runs mode {@code upgrading}: no learners can be placed, so waiting would gain nothing. */
	LEARNERS_UNAVAILABLE,

	/**
	 * A reason a newer version's leader gave, which this version does not know: the member hands over as told, and
	 * its outcome says whether every learner was ready. Never planned by this version.
	 */
	NOT_KNOWN

}
