package io.github.incrementalrebalance.planner;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The default placement policy: Kafka's rack-aware assignment of active tasks (KIP-925). With
 * {@code rack.aware.assignment.strategy} {@code min_traffic} or {@code balance_subtopology}, running a task on a member
 * costs {@code rack.aware.assignment.traffic_cost} (10 unless set, as in Kafka's high-availability assignor) for each
 * of its source and changelog partitions that has no replica in the member's rack ({@code client.rack}). With
 * {@code none} (Kafka's default) every placement costs nothing. Every member may run every task.
 * <p>
 * Extend it to keep Kafka's rack-awareness and add rules of your own; call {@code super.configure} when overriding
 * {@link #configure(Map)}.
 */
public class RackAwarePlacementPolicy implements PlacementPolicy, Configurable {

	/**
	 * Kafka's high-availability assignor's traffic cost, used when {@code rack.aware.assignment.traffic_cost} is unset.
	 */
	public static final int DEFAULT_TRAFFIC_COST = 10;

	private boolean enabled;

	private long trafficCost = DEFAULT_TRAFFIC_COST;

	@Override
	public void configure(Map<String, ?> configs) {
		Object strategy = configs.get(StreamsConfig.RACK_AWARE_ASSIGNMENT_STRATEGY_CONFIG);
		String value = (strategy != null) ? String.valueOf(strategy).trim().toLowerCase(Locale.ROOT)
				: StreamsConfig.RACK_AWARE_ASSIGNMENT_STRATEGY_NONE;
		this.enabled = !StreamsConfig.RACK_AWARE_ASSIGNMENT_STRATEGY_NONE.equals(value);
		Object cost = configs.get(StreamsConfig.RACK_AWARE_ASSIGNMENT_TRAFFIC_COST_CONFIG);
		if (cost != null) {
			try {
				this.trafficCost = Integer.parseInt(String.valueOf(cost).trim());
			}
			catch (NumberFormatException ex) {
				this.trafficCost = -1;
			}
			if (this.trafficCost < 0) {
				throw new ConfigException(StreamsConfig.RACK_AWARE_ASSIGNMENT_TRAFFIC_COST_CONFIG, cost,
						"a whole number >= 0");
			}
		}
	}

	/**
	 * {@code rack.aware.assignment.traffic_cost} for every partition of the task without a replica in the member's
	 * rack; nothing when the strategy is {@code none} or the member's rack is unknown.
	 */
	@Override
	public long cost(GroupTask task, GroupMember member) {
		Optional<String> rack = member.rack();
		if (!this.enabled || rack.isEmpty()) {
			return 0;
		}
		long cost = 0;
		for (Set<String> racks : task.partitionRacks()) {
			if (!racks.contains(rack.get())) {
				cost += this.trafficCost;
			}
		}
		return cost;
	}

}
