package io.github.incrementalrebalance.config;

import java.util.Locale;

/**
 * What a task weighs when the planner balances the group ({@code incremental.rebalance.task.weight}).
 */
public enum TaskWeight {

	/** Every task weighs one: the balancing factor applies to tasks per thread, as in Kafka. */
	COUNT,

	/**
	 * A stateful task weighs the records in its changelogs, read by the group leader each rebalance: the factor
	 * applies to records per thread, so one member does not end up with all the big stores.
	 */
	STATE_SIZE;

	/**
	 * The setting's value, as the Kafka-style key takes it.
	 * @return {@code count} or {@code state-size}
	 */
	public String value() {
		return name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

}
