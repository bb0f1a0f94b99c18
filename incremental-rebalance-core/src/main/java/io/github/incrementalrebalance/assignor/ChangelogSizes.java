package io.github.incrementalrebalance.assignor;

import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;

/**
 * Reads how many records changelog partitions hold, so that the group leader can weigh tasks by state size
 * ({@code incremental.rebalance.task.weight=state-size}). Kafka makes a new assignor per rebalance, so the reader
 * lives in the Streams config under {@link #CONFIG}, as the control view does.
 */
@FunctionalInterface
public interface ChangelogSizes {

	/** Streams config key of the reader. */
	String CONFIG = "incremental.rebalance.changelog.sizes";

	/**
	 * The records of each partition, from its start offset to its end offset: what restoring it from scratch reads.
	 * @param partitions changelog partitions
	 * @return the records of every one of them
	 * @throws RuntimeException when they cannot all be read in time
	 */
	Map<TopicPartition, Long> records(Set<TopicPartition> partitions);

}
