package io.github.incrementalrebalance.member;

import java.util.Locale;

/**
 * Why this instance started or joined a rebalance, as its meters count them.
 */
public enum RebalanceCause {

	/** It asked to leave, or asks again while no plan has answered. */
	LEAVE,

	/** It cancelled its leave. */
	CANCEL,

	/** Its learners read ready and the plan does not show them ready yet. */
	LEARNERS_READY,

	/** It joined by itself: a new member, a round after a revoke, a follow-up Kafka Streams scheduled. */
	JOIN,

	/** Another member announced a rebalance and this one rejoined at once. */
	FOLLOW,

	/** The application asked, through {@link RebalanceTrigger#request(String)}. */
	APPLICATION;

	/**
	 * The cause as meters and logs name it.
	 * @return e.g. {@code learners-ready}
	 */
	public String word() {
		return name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

}
