package io.github.incrementalrebalance.config;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

import io.github.incrementalrebalance.identity.MemberIdentity;
import io.github.incrementalrebalance.planner.DrainRestoreCap;
import io.github.incrementalrebalance.planner.LearnerRebalance;
import io.github.incrementalrebalance.planner.PlacementPolicy;
import io.github.incrementalrebalance.planner.PlannerSettings;
import io.github.incrementalrebalance.planner.RackAwarePlacementPolicy;
import io.github.incrementalrebalance.planner.RebalancingMode;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.GroupProtocol;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The Kafka-style keys of incremental-rebalance, read from the Kafka Streams config. An invalid value fails with a
 * {@link ConfigException} naming the key, the value and what is accepted.
 */
public final class LearnerConfig extends AbstractConfig {

	/** How long a leave record is kept by default while the start of the member it names is absent from the group. */
	public static final Duration DEFAULT_LEAVE_RECORD_RETENTION = Duration.ofMinutes(10);

	/** {@code incremental} (the learner assignor) or {@code upgrading} (Kafka's own assignor). */
	public static final String REBALANCING_MODE_CONFIG = "incremental.rebalance.mode";

	/** How long a leaving member waits for its learners; unset means however long it takes. */
	public static final String DRAIN_TIMEOUT_MS_CONFIG = "incremental.rebalance.drain.timeout.ms";

	/** Tolerated ratio between the most and the least loaded member. */
	public static final String BALANCING_FACTOR_CONFIG = "incremental.rebalance.balancing.factor";

	/** {@code eager} or {@code conservative}. */
	public static final String DRAIN_HAND_OVER_CONFIG = "incremental.rebalance.drain.hand.over";

	/** The safety-net follow-up while learners exist. */
	public static final String LEARNER_PROBE_INTERVAL_MS_CONFIG = "incremental.rebalance.learner.probe.interval.ms";

	/** This instance's id; defaults to the pod name ({@code HOSTNAME}) or the host name. */
	public static final String INSTANCE_ID_CONFIG = "incremental.rebalance.instance.id";

	/** The control topic; defaults to {@code <application.id>-rebalance-control}. */
	public static final String CONTROL_TOPIC_CONFIG = "incremental.rebalance.control.topic";

	/** Whether to create the control topic when it is missing. */
	public static final String CONTROL_TOPIC_CREATE_CONFIG = "incremental.rebalance.control.topic.create";

	/**
	 * How long the cluster may take to answer one request about the control topic before the library says it did
	 * not: a description of the topic or a request for its end (the topic is then reported unreadable, and leaves
	 * refused until it answers), a write (its outcome is then unknown), the check of the topic at start (tried again);
	 * also how long a member's start waits for the topic to be read before Kafka Streams start without it.
	 */
	public static final String CONTROL_TOPIC_TIMEOUT_MS_CONFIG = "incremental.rebalance.control.topic.timeout.ms";

	/** The default of {@value #CONTROL_TOPIC_TIMEOUT_MS_CONFIG}. */
	public static final Duration DEFAULT_CONTROL_TOPIC_TIMEOUT = Duration.ofSeconds(10);

	/**
	 * Whether a dynamic member's close is a real leave whatever Kafka Streams asks (the default); false closes as Kafka
	 * Streams and the application ask. A drained member leaves either way.
	 */
	public static final String LEAVE_ON_CLOSE_CONFIG = "incremental.rebalance.leave.on.close";

	/**
	 * How long the leader keeps a leave record once the member start it names is no longer in the group (it crashed
	 * while leaving, or closed); measured on the leader's clock, from when it first planned without that start.
	 */
	public static final String LEAVE_RECORD_RETENTION_MS_CONFIG = "incremental.rebalance.leave.record.retention.ms";

	/**
	 * Whether members ask each other over the control topic to rejoin at once when a hand-over needs a rebalance,
	 * instead of each waiting for its next heartbeat.
	 */
	public static final String REJOIN_REQUESTS_CONFIG = "incremental.rebalance.rejoin.requests";

	/**
	 * How often a member with learners publishes their progress (lag, restore rate, ETA) on the control topic.
	 */
	public static final String PROGRESS_INTERVAL_MS_CONFIG = "incremental.rebalance.progress.interval.ms";

	/**
	 * The {@link PlacementPolicy} class: where tasks may run and what that costs; the default honours Kafka's
	 * {@code rack.aware.assignment.strategy}.
	 */
	public static final String PLACEMENT_POLICY_CLASS_CONFIG = "incremental.rebalance.placement.policy.class";

	/**
	 * What a task weighs when the planner balances: {@code count} (one each) or {@code state-size} (the records in
	 * its changelogs, read by the group leader each rebalance).
	 */
	public static final String TASK_WEIGHT_CONFIG = "incremental.rebalance.task.weight";

	/**
	 * How long the group leader waits for the changelogs' offsets when tasks weigh their state: the rebalance waits
	 * for them, and a round whose offsets came too late weighs every task one (with a WARN and a health detail).
	 */
	public static final String TASK_WEIGHT_TIMEOUT_MS_CONFIG = "incremental.rebalance.task.weight.timeout.ms";

	/** The default of {@value #TASK_WEIGHT_TIMEOUT_MS_CONFIG}. */
	public static final Duration DEFAULT_TASK_WEIGHT_TIMEOUT = Duration.ofSeconds(5);

	/**
	 * How long a leave waits for the group to answer it (a plan that acknowledges it; after a rebalance, a plan of that
	 * generation) before it says it waits; unset means the group's rebalance timeout, the main consumer's
	 * {@code max.poll.interval.ms}.
	 */
	public static final String LEAVE_ACKNOWLEDGEMENT_TIMEOUT_MS_CONFIG =
			"incremental.rebalance.leave.acknowledgement.timeout.ms";

	/**
	 * What a leave does once its acknowledgement timeout passed unanswered: {@code wait} (keep asking, and say why)
	 * or {@code leave} (leave the group without learners).
	 */
	public static final String LEAVE_UNANSWERED_CONFIG = "incremental.rebalance.leave.unanswered";

	/**
	 * How long the learners of a drain may not come closer to ready before the drain is reported stalled (WARN,
	 * health, the endpoint, a meter); it goes on.
	 */
	public static final String DRAIN_STALL_TIMEOUT_MS_CONFIG = "incremental.rebalance.drain.stall.timeout.ms";

	/**
	 * The most learners of drains that restore at once on one member (ready ones do not count); unset for as many as
	 * the drains need. Set by every member, read by the group leader.
	 */
	public static final String DRAIN_RESTORES_PER_MEMBER_CONFIG = "incremental.rebalance.drain.restores.per.member";

	/**
	 * The most learners of drains that restore at once in the whole group (ready ones do not count); unset for as many
	 * as the drains need. Set by every member, read by the group leader.
	 */
	public static final String DRAIN_RESTORES_IN_GROUP_CONFIG = "incremental.rebalance.drain.restores.in.group";

	/** What an instance id may be, in words. */
	public static final String INSTANCE_ID_RULE = "1 to 253 characters of A-Z, a-z, 0-9, '.', '_' and '-' (one longer "
			+ "than " + MemberIdentity.MAX_INSTANCE_ID + " is shortened to its first 21 characters and 8 hex digits of its "
			+ "hash)";

	private static final ConfigDef CONFIG = new ConfigDef()
		.define(INSTANCE_ID_CONFIG, Type.STRING, null, ConfigDef.LambdaValidator.with((name, value) -> {
			try {
				if (value != null) {
					MemberIdentity.instanceIdOf((String) value);
				}
			}
			catch (IllegalArgumentException ex) {
				throw new ConfigException(name, value, ex.getMessage());
			}
		}, () -> INSTANCE_ID_RULE), Importance.MEDIUM,
				"This instance's id: the pod name in Kubernetes by default, else <host>-<pid>.")
		.define(CONTROL_TOPIC_CONFIG, Type.STRING, null, Importance.LOW,
				"The control topic; <application.id>-rebalance-control by default.")
		.define(CONTROL_TOPIC_CREATE_CONFIG, Type.BOOLEAN, true, Importance.LOW,
				"Whether to create the control topic when it is missing.")
		.define(CONTROL_TOPIC_TIMEOUT_MS_CONFIG, Type.LONG, DEFAULT_CONTROL_TOPIC_TIMEOUT.toMillis(),
				ConfigDef.Range.between(1, Integer.MAX_VALUE), Importance.LOW,
				"How long the cluster may take to answer one request about the control topic: a description of "
						+ "the topic or a request for its end (unanswered, the topic is reported unreadable and leaves "
						+ "are refused until it answers), a write (unanswered, its outcome is unknown), the check of "
						+ "the topic at start (tried again); also how long a start waits for the topic to be read "
						+ "before Kafka Streams start without it. Raise it for a cluster that answers metadata requests "
						+ "slowly; a cut from the cluster is seen this long after it begins, at most 5 s more.")
		.define(LEAVE_ON_CLOSE_CONFIG, Type.BOOLEAN, true, Importance.MEDIUM,
				"true: every close of a dynamic member sends a LeaveGroup, so its tasks move within a heartbeat instead "
						+ "of after session.timeout.ms (a static member stays unless drained); false: close as Kafka "
						+ "Streams and the application ask (Kafka Streams stays in the group unless closed with "
						+ "LEAVE_GROUP). A drained member leaves either way.")
		.define(REBALANCING_MODE_CONFIG, Type.STRING, "incremental",
				ConfigDef.CaseInsensitiveValidString.in("incremental", "upgrading"), Importance.HIGH,
				"incremental: the learner assignor; upgrading: Kafka's own assignor while a group rolls onto or off "
						+ "this library.")
		.define(DRAIN_TIMEOUT_MS_CONFIG, Type.LONG, null, ConfigDef.LambdaValidator.with((name, value) -> {
			if (value != null && (Long) value < 0) {
				throw new ConfigException(name, value, "must be >= 0 milliseconds, or unset to wait for learners");
			}
		}, () -> "milliseconds >= 0, or unset"), Importance.MEDIUM,
				"How long a leaving member waits for its learners before it leaves anyway.")
		.define(LEAVE_ACKNOWLEDGEMENT_TIMEOUT_MS_CONFIG, Type.LONG, null,
				ConfigDef.LambdaValidator.with((name, value) -> {
					if (value != null && (Long) value < 1) {
						throw new ConfigException(name, value,
								"must be >= 1 millisecond, or unset for the group's rebalance timeout");
					}
				}, () -> "milliseconds >= 1, or unset"), Importance.LOW,
				"How long a leave waits for the group to answer it (a plan that acknowledges it; after a rebalance, a "
						+ "plan of that generation) before it says it waits, in the log and the member's state. Unset: "
						+ "the group's rebalance timeout (the main consumer's max.poll.interval.ms), as long as a "
						+ "slow rebalance may take.")
		.define(LEAVE_UNANSWERED_CONFIG, Type.STRING, "wait", ConfigDef.CaseInsensitiveValidString.in("wait", "leave"),
				Importance.LOW,
				"What a leave does once its acknowledgement timeout passed unanswered. wait: keep asking until the "
						+ "group answers, the leave is cancelled or its own timeout passes (a slow group never turns a "
						+ "leave into a cold move); leave: leave the group without learners (left-without-learners).")
		.define(BALANCING_FACTOR_CONFIG, Type.DOUBLE, 2.0, ConfigDef.Range.atLeast(1.0), Importance.MEDIUM,
				"Tolerated ratio of tasks per thread between the most and the least loaded member.")
		.define(DRAIN_HAND_OVER_CONFIG, Type.STRING, "conservative",
				ConfigDef.CaseInsensitiveValidString.in("eager", "conservative"), Importance.MEDIUM,
				"eager: a leaving member's tasks move one by one as their learners get ready; conservative: "
						+ "together, once all are ready.")
		.define(LEARNER_PROBE_INTERVAL_MS_CONFIG, Type.LONG, 30_000L, ConfigDef.Range.atLeast(1), Importance.LOW,
				"Follow-up rebalance interval while learners exist (a safety net: members trigger moves themselves).")
		.define(REJOIN_REQUESTS_CONFIG, Type.BOOLEAN, true, Importance.LOW,
				"true: a member that starts a rebalance for a hand-over (it leaves, its learners are ready, it left) "
						+ "asks the others over the control topic to rejoin at once, so that a round costs no heartbeat "
						+ "interval; false: the others rejoin at their next heartbeat.")
		.define(DRAIN_STALL_TIMEOUT_MS_CONFIG, Type.LONG, Duration.ofMinutes(5).toMillis(), ConfigDef.Range.atLeast(1),
				Importance.LOW, "How long the learners of a drain may not come closer to ready before the drain is "
						+ "reported stalled (WARN, health, the endpoint, a meter); the drain goes on.")
		.define(DRAIN_RESTORES_PER_MEMBER_CONFIG, Type.INT, null, ConfigDef.LambdaValidator.with((name, value) -> {
			if (value != null && (Integer) value < 1) {
				throw new ConfigException(name, value, "must be at least 1, or unset for no cap");
			}
		}, () -> "an integer >= 1, or unset"), Importance.MEDIUM,
				"The most learners of drains that restore at once on one member (ready learners do not count): a "
						+ "large drain or rollout restores in waves instead of all at once; unset for no cap.")
		.define(DRAIN_RESTORES_IN_GROUP_CONFIG, Type.INT, null, ConfigDef.LambdaValidator.with((name, value) -> {
			if (value != null && (Integer) value < 1) {
				throw new ConfigException(name, value, "must be at least 1, or unset for no cap");
			}
		}, () -> "an integer >= 1, or unset"), Importance.MEDIUM,
				"The most learners of drains that restore at once in the whole group (ready learners do not count): "
						+ "drains of several members at once, or a rollout, fetch from the brokers in waves; unset for "
						+ "no cap.")
		.define(PROGRESS_INTERVAL_MS_CONFIG, Type.LONG, 2_000L, ConfigDef.Range.atLeast(100), Importance.LOW,
				"How often a member with learners publishes their progress (lag, restore rate, ETA) on the control "
						+ "topic: one small record per member per interval, none without learners.")
		.define(PLACEMENT_POLICY_CLASS_CONFIG, Type.CLASS, RackAwarePlacementPolicy.class,
				ConfigDef.LambdaValidator.with((name, value) -> {
					if (value != null && !PlacementPolicy.class.isAssignableFrom((Class<?>) value)) {
						throw new ConfigException(name, ((Class<?>) value).getName(),
								"a class implementing " + PlacementPolicy.class.getName());
					}
				}, () -> "a class implementing " + PlacementPolicy.class.getName()), Importance.MEDIUM,
				"Where tasks may run and what running them there costs (a " + PlacementPolicy.class.getName()
						+ " with a public no-argument constructor; Configurable ones get the Kafka Streams config). "
						+ "The default honours rack.aware.assignment.strategy.")
		.define(TASK_WEIGHT_CONFIG, Type.STRING, "count", ConfigDef.CaseInsensitiveValidString.in("count", "state-size"),
				Importance.MEDIUM,
				"count: every task weighs one, and the balancing factor applies to tasks per thread; state-size: a "
						+ "stateful task weighs the records in its changelogs (from start to end offset, at least one), "
						+ "read by the group leader each rebalance, and the factor applies to records per thread, so one "
						+ "member does not end up with all the big stores. Stateless tasks weigh one either way.")
		.define(TASK_WEIGHT_TIMEOUT_MS_CONFIG, Type.LONG, DEFAULT_TASK_WEIGHT_TIMEOUT.toMillis(),
				ConfigDef.Range.between(1, Integer.MAX_VALUE), Importance.LOW,
				"With task.weight=state-size, how long the group leader waits for the changelogs' start and end "
						+ "offsets each rebalance; every member's rebalance waits for them, and a round whose offsets "
						+ "came too late weighs every task one (WARN, health). Raise it for a cluster that answers "
						+ "offset requests slowly, lower it to bound how long a slow cluster holds a rebalance.")
		.define(LEAVE_RECORD_RETENTION_MS_CONFIG, Type.LONG, DEFAULT_LEAVE_RECORD_RETENTION.toMillis(),
				ConfigDef.Range.atLeast(1), Importance.LOW,
				"How long the leader keeps a leave record once the member start it names is no longer in the group "
						+ "(measured on the leader's clock from when it was first missing; a member that is leaving "
						+ "is never missing, however long its drain takes).");

	public LearnerConfig(Map<?, ?> originals) {
		super(CONFIG, originals, false);
	}

	/**
	 * The keys, with their types, defaults and documentation, as Kafka's own configs publish theirs.
	 * @return a copy of the definition
	 */
	public static ConfigDef configDef() {
		return new ConfigDef(CONFIG);
	}

	/**
	 * The group protocol a Kafka Streams config selects: it decides how a member drains, through learners the
	 * assignor places (classic) or through the standbys the broker places (streams, KIP-1071).
	 * @param streamsConfig a Kafka Streams config
	 * @return the protocol, classic when unset
	 * @throws StartRefusedException naming what is accepted when the value is neither
	 */
	public static GroupProtocol groupProtocol(Map<?, ?> streamsConfig) {
		Object value = streamsConfig.get(StreamsConfig.GROUP_PROTOCOL_CONFIG);
		if (value == null) {
			return GroupProtocol.CLASSIC;
		}
		try {
			return GroupProtocol.of(String.valueOf(value).trim());
		}
		catch (IllegalArgumentException ex) {
			throw new StartRefusedException(StreamsConfig.GROUP_PROTOCOL_CONFIG,
					"group.protocol=" + value + " is not a group protocol of Kafka Streams", "classic or streams");
		}
	}

	/**
	 * How long a leave waits for the group to answer it before it says so.
	 * @param rebalanceTimeout the group's rebalance timeout, the default
	 * @return the configured timeout, else the rebalance timeout
	 */
	public Duration leaveAcknowledgementTimeout(Duration rebalanceTimeout) {
		Long configured = getLong(LEAVE_ACKNOWLEDGEMENT_TIMEOUT_MS_CONFIG);
		return (configured != null) ? Duration.ofMillis(configured) : rebalanceTimeout;
	}

	/**
	 * Whether a leave whose acknowledgement timeout passed unanswered leaves without learners.
	 * @return true for {@code leave}, false for {@code wait}
	 */
	public boolean leaveUnanswered() {
		return "leave".equalsIgnoreCase(getString(LEAVE_UNANSWERED_CONFIG));
	}

	/**
	 * The group's rebalance timeout on the classic protocol: how long a member may take to rejoin a rebalance, the
	 * main consumer's {@code max.poll.interval.ms} (Kafka Streams sets no default of its own).
	 * @param streamsConfig the Kafka Streams config
	 * @return the timeout
	 */
	public static Duration rebalanceTimeout(Map<?, ?> streamsConfig) {
		return Duration.ofMillis(mainConsumerSetting(streamsConfig, ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG));
	}

	/**
	 * The main consumer's session timeout: how long the group waits for a silent member before it counts it gone.
	 * @param streamsConfig the Kafka Streams config
	 * @return the timeout
	 */
	public static Duration sessionTimeout(Map<?, ?> streamsConfig) {
		return Duration.ofMillis(mainConsumerSetting(streamsConfig, ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG));
	}

	/**
	 * The main consumer's heartbeat interval: how often a member hears of a rebalance another one started.
	 * @param streamsConfig the Kafka Streams config
	 * @return the interval
	 */
	public static Duration heartbeatInterval(Map<?, ?> streamsConfig) {
		return Duration.ofMillis(mainConsumerSetting(streamsConfig, ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG));
	}

	/**
	 * The main consumer's {@code group.instance.id}: set, the member is static, and a restart within the session
	 * timeout gets its tasks back without a rebalance.
	 * @param streamsConfig the Kafka Streams config
	 * @return the id, empty for a dynamic member
	 */
	public static Optional<String> groupInstanceId(Map<?, ?> streamsConfig) {
		String key = ConsumerConfig.GROUP_INSTANCE_ID_CONFIG;
		return Stream.of(StreamsConfig.mainConsumerPrefix(key), StreamsConfig.consumerPrefix(key), key)
			.map(streamsConfig::get)
			.filter(Objects::nonNull)
			.map(String::valueOf)
			.findFirst();
	}

	/**
	 * A main consumer's setting as Kafka Streams resolves it: {@code main.consumer.}, then {@code consumer.}, then
	 * the plain key, then the consumer's default.
	 */
	private static long mainConsumerSetting(Map<?, ?> streamsConfig, String key) {
		for (String name : List.of(StreamsConfig.mainConsumerPrefix(key), StreamsConfig.consumerPrefix(key), key)) {
			Object value = streamsConfig.get(name);
			if (value != null) {
				return Long.parseLong(String.valueOf(value).trim());
			}
		}
		return ((Number) ConsumerConfig.configDef().defaultValues().get(key)).longValue();
	}

	/**
	 * The group's {@code acceptable.recovery.lag}: how far behind a learner may be and still take over.
	 * @param streamsConfig the Kafka Streams config
	 * @return the lag, in records
	 */
	public static long acceptableRecoveryLag(Map<?, ?> streamsConfig) {
		Object value = streamsConfig.get(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG);
		return (value != null) ? Long.parseLong(String.valueOf(value).trim())
				: ((Number) StreamsConfig.configDef().defaultValues().get(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG))
					.longValue();
	}

	/**
	 * The replication factor Kafka Streams makes its internal topics with, which the control topic gets too.
	 * @param streamsConfig the Kafka Streams config
	 * @return the factor, -1 for the broker's default
	 */
	public static int replicationFactor(Map<?, ?> streamsConfig) {
		Object value = streamsConfig.get(StreamsConfig.REPLICATION_FACTOR_CONFIG);
		return (value != null) ? Integer.parseInt(String.valueOf(value).trim()) : -1;
	}

	public boolean leaveOnClose() {
		return getBoolean(LEAVE_ON_CLOSE_CONFIG);
	}

	public RebalancingMode rebalancingMode() {
		return RebalancingMode.valueOf(getString(REBALANCING_MODE_CONFIG).toUpperCase(Locale.ROOT));
	}

	public Optional<Duration> drainTimeout() {
		return Optional.ofNullable(getLong(DRAIN_TIMEOUT_MS_CONFIG)).map(Duration::ofMillis);
	}

	public double balancingFactor() {
		return getDouble(BALANCING_FACTOR_CONFIG);
	}

	public LearnerRebalance learnerRebalance() {
		return LearnerRebalance.valueOf(getString(DRAIN_HAND_OVER_CONFIG).toUpperCase(Locale.ROOT));
	}

	public Optional<String> instanceId() {
		return Optional.ofNullable(getString(INSTANCE_ID_CONFIG));
	}

	/**
	 * The keys this library reads from a Kafka Streams config.
	 * @return the names
	 */
	public static Set<String> configNames() {
		return CONFIG.names();
	}

	/**
	 * The control topic's name when {@value #CONTROL_TOPIC_CONFIG} is not set.
	 * @param applicationId the Kafka Streams application id
	 * @return {@code <application.id>-rebalance-control}
	 */
	public static String defaultControlTopic(String applicationId) {
		return applicationId + "-rebalance-control";
	}

	/**
	 * The control topic of an application.
	 * @param applicationId the application id
	 * @return the configured topic, or the default one
	 */
	public String controlTopic(String applicationId) {
		String topic = getString(CONTROL_TOPIC_CONFIG);
		return (topic != null) ? topic : defaultControlTopic(applicationId);
	}

	public boolean createControlTopic() {
		return getBoolean(CONTROL_TOPIC_CREATE_CONFIG);
	}

	public Duration controlTopicTimeout() {
		return Duration.ofMillis(getLong(CONTROL_TOPIC_TIMEOUT_MS_CONFIG));
	}

	public boolean rejoinRequests() {
		return getBoolean(REJOIN_REQUESTS_CONFIG);
	}

	public Duration leaveRecordRetention() {
		return Duration.ofMillis(getLong(LEAVE_RECORD_RETENTION_MS_CONFIG));
	}

	public Duration drainStallTimeout() {
		return Duration.ofMillis(getLong(DRAIN_STALL_TIMEOUT_MS_CONFIG));
	}

	/** @return the caps on drains' learners restoring at once, {@link PlannerSettings#NO_CAP} where unset */
	public DrainRestoreCap drainRestoreCap() {
		Integer perMember = getInt(DRAIN_RESTORES_PER_MEMBER_CONFIG);
		Integer inGroup = getInt(DRAIN_RESTORES_IN_GROUP_CONFIG);
		return new DrainRestoreCap((perMember != null) ? perMember : PlannerSettings.NO_CAP,
				(inGroup != null) ? inGroup : PlannerSettings.NO_CAP);
	}

	public Duration progressInterval() {
		return Duration.ofMillis(getLong(PROGRESS_INTERVAL_MS_CONFIG));
	}

	/**
	 * A new placement policy, configured with the Kafka Streams config when it is {@code Configurable}.
	 * @return the policy
	 * @throws ConfigException naming the key when the class cannot be made or refuses its configuration
	 */
	public PlacementPolicy placementPolicy() {
		try {
			return getConfiguredInstance(PLACEMENT_POLICY_CLASS_CONFIG, PlacementPolicy.class);
		}
		catch (ConfigException ex) {
			throw ex;
		}
		catch (KafkaException ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			throw new ConfigException(PLACEMENT_POLICY_CLASS_CONFIG, getClass(PLACEMENT_POLICY_CLASS_CONFIG).getName(),
					"could not be made (" + cause + "): use a public class implementing " + PlacementPolicy.class.getName()
							+ " with a public no-argument constructor");
		}
	}

	public TaskWeight taskWeight() {
		return TaskWeight.valueOf(getString(TASK_WEIGHT_CONFIG).toUpperCase(Locale.ROOT).replace('-', '_'));
	}

	public Duration taskWeightTimeout() {
		return Duration.ofMillis(getLong(TASK_WEIGHT_TIMEOUT_MS_CONFIG));
	}

	public Duration learnerProbeInterval() {
		return Duration.ofMillis(getLong(LEARNER_PROBE_INTERVAL_MS_CONFIG));
	}

}
