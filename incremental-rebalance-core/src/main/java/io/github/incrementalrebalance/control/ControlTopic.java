package io.github.incrementalrebalance.control;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control topic: compacted, one partition, created at start when missing.
 */
public final class ControlTopic {

	private static final Logger logger = LoggerFactory.getLogger(ControlTopic.class);

	private ControlTopic() {
	}

	/**
	 * Make sure the topic exists, with an admin client made from the Kafka Streams config.
	 * @param streamsConfig the Kafka Streams config (bootstrap and security settings)
	 * @param topic the topic
	 * @param replicationFactor the replication factor to create it with, -1 for the broker's default
	 * @param create whether to create it when missing
	 * @param timeout how long to wait for the cluster
	 */
	public static void ensureExists(Map<String, ?> streamsConfig, String topic, int replicationFactor, boolean create,
			Duration timeout) {
		Object applicationId = streamsConfig.get("application.id");
		try (Admin admin = new ControlClients(streamsConfig, applicationId + "-rebalance-control").admin()) {
			ensureExists(admin, topic, replicationFactor, create, timeout);
		}
	}

	/**
	 * Make sure the topic exists.
	 * @param admin an admin client of the cluster
	 * @param topic the topic
	 * @param replicationFactor the replication factor to create it with, -1 for the broker's default
	 * @param create whether to create it when missing
	 * @param timeout how long to wait for the cluster
	 * @throws ControlTopicException when it is missing and may not be created, or cannot be created, with the fix
	 */
	public static void ensureExists(Admin admin, String topic, int replicationFactor, boolean create,
			Duration timeout) {
		try {
			Optional<TopicDescription> existing = describe(admin, topic, timeout);
			if (existing.isPresent()) {
				if (existing.get().partitions().size() != 1) {
					logger.warn("Control topic {} has {} partitions; only partition 0 is used", topic,
							existing.get().partitions().size());
				}
				return;
			}
			if (!create) {
				throw new ControlTopicException("Control topic '" + topic + "' does not exist and creating it is "
						+ "switched off: create it (1 partition, cleanup.policy=compact) or switch "
						+ "incremental.rebalance.control.topic.create on");
			}
			NewTopic newTopic = new NewTopic(topic, Optional.of(1),
					(replicationFactor == -1) ? Optional.empty() : Optional.of((short) replicationFactor))
				.configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
			admin.createTopics(List.of(newTopic)).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
			logger.info("Created control topic {}", topic);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof TopicExistsException) {
				return;
			}
			if (ex.getCause() instanceof InvalidReplicationFactorException) {
				throw new ControlTopicException("Cannot create control topic '" + topic + "' with replication factor "
						+ replicationFactor + ": " + ex.getCause().getMessage() + ". Set Kafka Streams' "
						+ "replication.factor to at most the number of brokers (or -1 for the broker default), or "
						+ "create the topic yourself (1 partition, cleanup.policy=compact)", ex.getCause());
			}
			throw new ControlTopicException("Cannot create control topic '" + topic + "': " + ex.getCause(),
					ex.getCause());
		}
		catch (TimeoutException ex) {
			throw new ControlTopicException("Cannot reach the cluster to check control topic '" + topic + "' within "
					+ timeout, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new ControlTopicException("Interrupted while checking control topic '" + topic + "'", ex);
		}
	}

	private static Optional<TopicDescription> describe(Admin admin, String topic, Duration timeout)
			throws ExecutionException, TimeoutException, InterruptedException {
		try {
			return Optional.of(admin.describeTopics(List.of(topic)).allTopicNames()
				.get(timeout.toMillis(), TimeUnit.MILLISECONDS)
				.get(topic));
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof UnknownTopicOrPartitionException) {
				return Optional.empty();
			}
			throw ex;
		}
	}

}
