package io.github.incrementalrebalance.control;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.incrementalrebalance.config.LearnerConfig;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control topic: compacted, one partition, created at start when missing; an existing one's settings checked.
 */
public final class ControlTopic {

	private static final Logger logger = LoggerFactory.getLogger(ControlTopic.class);

	private static final String HOW_TO_CREATE = "1 partition, cleanup.policy=compact, segment.ms=3600000, "
			+ "max.compaction.lag.ms=3600000, min.cleanable.dirty.ratio=0.1";

	/** How soon a record replaced or deleted is compacted away, at the latest, on a topic created here. */
	static final Duration COMPACTED_WITHIN = Duration.ofHours(1);

	/**
	 * Compacted, and compacted soon: the log cleaner never touches the active segment, so with Kafka's defaults
	 * (a segment rolls after 7 days or 1 GiB) a start would read a week of plans; a segment that rolls hourly, a low
	 * dirty ratio and a maximum compaction lag keep a start's read to the latest records and an hour of history.
	 */
	static final Map<String, String> CREATED_WITH = Map.of(TopicConfig.CLEANUP_POLICY_CONFIG,
			TopicConfig.CLEANUP_POLICY_COMPACT, TopicConfig.SEGMENT_MS_CONFIG,
			String.valueOf(COMPACTED_WITHIN.toMillis()), TopicConfig.MAX_COMPACTION_LAG_MS_CONFIG,
			String.valueOf(COMPACTED_WITHIN.toMillis()), TopicConfig.MIN_CLEANABLE_DIRTY_RATIO_CONFIG, "0.1");

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
		Admin admin = ControlClients.ofControlTopic(streamsConfig).admin();
		try {
			ensureExists(admin, topic, replicationFactor, create, timeout);
		}
		finally {
			// a close without a bound waits for the requests of a check that timed out, up to the admin's own minute
			admin.close(Duration.ZERO);
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
				checkSettings(admin, topic, timeout);
				return;
			}
			if (!create) {
				throw new ControlTopicException("Control topic '" + topic + "' does not exist and creating it is "
						+ "switched off: create it (" + HOW_TO_CREATE + ") or switch "
						+ "incremental.rebalance.control.topic.create on");
			}
			NewTopic newTopic = new NewTopic(topic, Optional.of(1),
					(replicationFactor == -1) ? Optional.empty() : Optional.of((short) replicationFactor))
				.configs(CREATED_WITH);
			admin.createTopics(List.of(newTopic), new CreateTopicsOptions().timeoutMs(millis(timeout)))
				.all()
				.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
			logger.info("Created control topic {}", topic);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof TopicExistsException) {
				return;
			}
			if (ex.getCause() instanceof org.apache.kafka.common.errors.TimeoutException) {
				// the admin's own deadline, the same as ours, came first (Kafka 4.4 answers so for a silent cluster)
				throw unreachable(topic, timeout, ex.getCause());
			}
			if (ex.getCause() instanceof InvalidReplicationFactorException) {
				throw new ControlTopicException("Cannot create control topic '" + topic + "' with replication factor "
						+ replicationFactor + ": " + ex.getCause().getMessage() + ". Set Kafka Streams' "
						+ "replication.factor to at most the number of brokers (or -1 for the broker default), or "
						+ "create the topic yourself (" + HOW_TO_CREATE + ")", ex.getCause());
			}
			throw new ControlTopicException("Cannot create control topic '" + topic + "': " + ex.getCause(),
					ex.getCause());
		}
		catch (TimeoutException ex) {
			throw unreachable(topic, timeout, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new ControlTopicException("Interrupted while checking control topic '" + topic + "'", ex);
		}
	}

	/**
	 * Say which settings of an existing topic make a start's read long or lose records. Reading them needs
	 * {@code DescribeConfigs}, which the control topic's ACLs need not grant: without it, nothing is said.
	 */
	private static void checkSettings(Admin admin, String topic, Duration timeout)
			throws ExecutionException, TimeoutException, InterruptedException {
		ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
		Config config;
		try {
			config = admin.describeConfigs(List.of(resource), new DescribeConfigsOptions().timeoutMs(millis(timeout)))
				.all()
				.get(timeout.toMillis(), TimeUnit.MILLISECONDS)
				.get(resource);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof AuthorizationException) {
				logger.debug("Settings of control topic {} not checked: {}", topic, ex.getCause().getMessage());
				return;
			}
			throw ex;
		}
		List<String> problems = new ArrayList<>();
		String policy = value(config, TopicConfig.CLEANUP_POLICY_CONFIG);
		if (!policy.contains(TopicConfig.CLEANUP_POLICY_COMPACT)) {
			problems.add("cleanup.policy=" + policy + " keeps every version of every record, and a start reads them "
					+ "all");
		}
		if (policy.contains(TopicConfig.CLEANUP_POLICY_DELETE)) {
			problems.add("cleanup.policy=" + policy + " deletes records older than retention.ms="
					+ value(config, TopicConfig.RETENTION_MS_CONFIG) + ", a pending leave among them");
		}
		long segmentMs = millis(config, TopicConfig.SEGMENT_MS_CONFIG);
		long maxLag = millis(config, TopicConfig.MAX_COMPACTION_LAG_MS_CONFIG);
		if (Math.min(segmentMs, maxLag) > COMPACTED_WITHIN.toMillis()) {
			problems.add("segment.ms=" + segmentMs + " and max.compaction.lag.ms=" + maxLag + " leave up to "
					+ Duration.ofMillis(Math.min(segmentMs, maxLag)) + " of history uncompacted, which every start reads");
		}
		if (!problems.isEmpty()) {
			logger.warn("Control topic {}: {}. Set cleanup.policy=compact, segment.ms={} and max.compaction.lag.ms={} "
					+ "(what incremental-rebalance creates it with)", topic, String.join("; ", problems),
					CREATED_WITH.get(TopicConfig.SEGMENT_MS_CONFIG),
					CREATED_WITH.get(TopicConfig.MAX_COMPACTION_LAG_MS_CONFIG));
		}
	}

	/** The admin's own bound for a request: it gives up when the caller does, rather than retry for a minute. */
	private static int millis(Duration timeout) {
		return (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
	}

	/** A time setting as the broker reports it; one it does not report bounds nothing. */
	private static long millis(Config config, String name) {
		String value = value(config, name);
		return value.isEmpty() ? Long.MAX_VALUE : Long.parseLong(value);
	}

	private static String value(Config config, String name) {
		ConfigEntry entry = config.get(name);
		return (entry != null && entry.value() != null) ? entry.value() : "";
	}

	private static ControlTopicException unreachable(String topic, Duration timeout, Throwable cause) {
		return new ControlTopicException("Cannot reach the cluster to check control topic '" + topic + "' within "
				+ timeout + " (" + LearnerConfig.CONTROL_TOPIC_TIMEOUT_MS_CONFIG + ")", cause);
	}

	private static Optional<TopicDescription> describe(Admin admin, String topic, Duration timeout)
			throws ExecutionException, TimeoutException, InterruptedException {
		try {
			return Optional.of(admin.describeTopics(List.of(topic), new DescribeTopicsOptions().timeoutMs(millis(timeout)))
				.allTopicNames()
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
