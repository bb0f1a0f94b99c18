package io.github.incrementalrebalance.member;

/**
 * Where a member is in leaving the group.
 */
public enum MemberState {

	/** Running; not asked to leave. */
	STABLE,

	/** Asked to leave: takes no new work while its tasks' learners warm up elsewhere. */
	LEAVING,

	/** Every task it ran has a ready learner: it leaves the group, one rebalance hands them all over. */
	DRAINED,

	/** Its drain timeout passed first: it leaves anyway, its tasks go to their most caught-up learners. */
	FORCED,

	/**
	 * It left without learners being placed for it (no learner-capable leader, no other member, ...): its stateful tasks
	 * restore on their new owners. The member's drain outcome says why.
	 */
	LEFT_WITHOUT_LEARNERS,

	/** Kafka Streams is closed ({@code NOT_RUNNING}) and the member is out of the group. */
	CLOSED

}
