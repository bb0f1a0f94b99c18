package io.github.incrementalrebalance.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.config.TaskWeight;
import io.github.incrementalrebalance.identity.MemberIdentity;
import io.github.incrementalrebalance.planner.LearnerRebalance;
import io.github.incrementalrebalance.planner.PlacementPolicy;
import io.github.incrementalrebalance.planner.RebalancingMode;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Configuration of incremental-rebalance, grouped by concern: the control topic, the drain, a leave's exchange with
 * the group, learners, readiness, placement and health. Each setting left unset keeps the value of its Kafka-style key
 * under {@code spring.kafka.streams.properties}, else the library's default; a setting made here wins over that key.
 *
 * @param enabled Whether to wire incremental-rebalance into the application's Kafka Streams.
 * @param mode Rebalancing mode: 'incremental' (the learner assignor) or 'upgrading' (Kafka's own assignor, while
 * a group rolls onto or off this library).
 * @param instanceId This instance's id, 1 to 30 characters of A-Z, a-z, 0-9, '.', '_' and '-'; a longer name (up
 * to 253, a pod's has up to 63) is shortened to its first 21 characters and 8 hex digits of its SHA-256, and the
 * endpoint and command line take either. Default: the pod name (HOSTNAME), else the host name and process id.
 * @param controlTopic The topic of leave requests and plans.
 * @param drain How a leaving instance hands its tasks over.
 * @param leave How a leave and a close meet the group.
 * @param learners How learners are followed while they restore.
 * @param readiness What readiness means.
 * @param placement Where tasks go and how the group is balanced.
 * @param health The 'rebalance' health contributor.
 * @param failOnUnknownKeys Whether a key under 'incremental-rebalance.' that the starter does not know (a misspelling,
 * a name from before 1.0) refuses the start; otherwise each is reported at WARN with the key meant, and ignored.
 */
@ConfigurationProperties("incremental-rebalance")
public record IncrementalRebalanceProperties(@DefaultValue("true") boolean enabled, @Nullable RebalancingMode mode,
		@Nullable String instanceId, @DefaultValue ControlTopic controlTopic, @DefaultValue Drain drain,
		@DefaultValue Leave leave, @DefaultValue Learners learners, @DefaultValue Readiness readiness,
		@DefaultValue Placement placement, @DefaultValue Health health,
		@DefaultValue("false") boolean failOnUnknownKeys) {

	private static final String PREFIX = "incremental-rebalance.";

	public IncrementalRebalanceProperties {
		if (instanceId != null) {
			try {
				MemberIdentity.instanceIdOf(instanceId);
			}
			catch (IllegalArgumentException ex) {
				throw invalid("instance-id", instanceId, LearnerConfig.INSTANCE_ID_RULE);
			}
		}
	}

	private static IllegalArgumentException invalid(String property, Object value, String accepted) {
		return new IllegalArgumentException(PREFIX + property + " is " + value + ": use " + accepted);
	}

	/**
	 * The settings made here as the library's Kafka-style keys.
	 * @return key to value, for the settings that are set
	 */
	public Map<String, Object> kafkaStyleKeys() {
		Map<String, Object> keys = new LinkedHashMap<>();
		if (this.mode != null) {
			keys.put(LearnerConfig.REBALANCING_MODE_CONFIG, this.mode.name().toLowerCase(Locale.ROOT));
		}
		if (this.instanceId != null) {
			keys.put(LearnerConfig.INSTANCE_ID_CONFIG, this.instanceId);
		}
		this.controlTopic.addKafkaStyleKeys(keys);
		this.drain.addKafkaStyleKeys(keys);
		this.leave.addKafkaStyleKeys(keys);
		this.learners.addKafkaStyleKeys(keys);
		this.placement.addKafkaStyleKeys(keys);
		return keys;
	}

	private static void putIfSet(Map<String, Object> keys, String key, @Nullable Object value) {
		if (value != null) {
			keys.put(key, value);
		}
	}

	private static @Nullable Long millis(@Nullable Duration duration) {
		return (duration != null) ? duration.toMillis() : null;
	}

	private static @Nullable String lowerCase(@Nullable Enum<?> value) {
		return (value != null) ? value.name().toLowerCase(Locale.ROOT) : null;
	}

	/**
	 * The control topic.
	 *
	 * @param name Topic of leave requests and plans of the Kafka Streams configured by 'spring.kafka.streams'. A
	 * StreamsBuilderFactoryBean of the application's own (a binder's function) is another group: it keeps the default
	 * or names its own in its configuration, and the start is refused when this is set and it names none. Default: the
	 * application id followed by '-rebalance-control'.
	 * @param create Whether to create the control topic when it is missing.
	 * @param timeout How long the cluster may take to answer one request about the control topic: a description of
	 * the topic or a request for its end (unanswered, the topic is reported unreadable in the log and health, and
	 * leaves are refused until it answers), a write (unanswered, its outcome is unknown), the check of the topic at
	 * start (tried again); also how long a start waits for the topic to be read before Kafka Streams start without
	 * it. Raise it for a cluster that answers metadata requests slowly; a cut from the cluster is seen this long after
	 * it begins, at most 5 seconds more.
	 */
	public record ControlTopic(@Nullable String name, @Nullable Boolean create, @Nullable Duration timeout) {

		public ControlTopic {
			if (timeout != null && (timeout.toMillis() < 1 || timeout.toMillis() > Integer.MAX_VALUE)) {
				throw invalid("control-topic.timeout", timeout, "a duration of 1ms to 24d");
			}
		}

		void addKafkaStyleKeys(Map<String, Object> keys) {
			putIfSet(keys, LearnerConfig.CONTROL_TOPIC_CONFIG, this.name);
			putIfSet(keys, LearnerConfig.CONTROL_TOPIC_CREATE_CONFIG, this.create);
			putIfSet(keys, LearnerConfig.CONTROL_TOPIC_TIMEOUT_MS_CONFIG, millis(this.timeout));
		}

	}

	/**
	 * The drain: how a leaving instance hands its tasks to warm learners.
	 *
	 * @param timeout How long a leaving instance waits for its learners before it leaves anyway, whether asked to leave
	 * or shut down; a shutdown's drain gets a lifecycle phase of its own of this timeout plus 5 seconds for Kafka
	 * Streams to close (a pod's grace period must cover it and the web server's graceful shutdown). Default: no bound
	 * for an asked leave, 15 seconds on shutdown.
	 * @param onShutdown Whether a normal shutdown (SIGTERM) drains this instance first, within the drain's timeout. A
	 * leave under way when the shutdown comes goes on within that timeout either way.
	 * @param onDrained What to do once this instance drained and left the group: close the application context
	 * ('shutdown') or only Kafka Streams ('stop-streams').
	 * @param handOver When a leaving instance's tasks move: 'eager' (one by one as learners get ready) or
	 * 'conservative' (together, through one hand-over).
	 * @param stallTimeout How long the learners of a drain may not come closer to ready before the drain is reported
	 * stalled, with the tasks and their lag (a WARN, health's 'drainStalled', the endpoint member's 'stalled', the
	 * 'incremental.rebalance.drain.stalled' gauge); the drain goes on.
	 * @param restoresPerMember The most learners of drains that restore at once on one instance (ready learners do
	 * not count): a drain or rollout of a large instance restores in waves, the most advanced learners first, instead
	 * of all at once on the same disks and brokers; it takes longer. Unset: no cap. Read by the group leader, so set it
	 * alike on every instance.
	 * @param restoresInGroup The most learners of drains that restore at once in the whole group (ready learners do
	 * not count): drains of several instances at once, or a rollout, fetch their state from the brokers in waves.
	 * Unset: no cap. Read by the group leader, so set it alike on every instance.
	 */
	public record Drain(@Nullable Duration timeout, @DefaultValue("false") boolean onShutdown,
			@DefaultValue("shutdown") OnDrained onDrained, @Nullable LearnerRebalance handOver,
			@Nullable Duration stallTimeout, @Nullable Integer restoresPerMember, @Nullable Integer restoresInGroup) {

		public Drain {
			if (timeout != null && timeout.isNegative()) {
				throw invalid("drain.timeout", timeout, "a duration of 0 or more, or unset");
			}
			if (stallTimeout != null && stallTimeout.toMillis() < 1) {
				throw invalid("drain.stall-timeout", stallTimeout, "a duration of at least 1ms");
			}
			if (restoresPerMember != null && restoresPerMember < 1) {
				throw invalid("drain.restores-per-member", restoresPerMember, "an integer of at least 1, or unset");
			}
			if (restoresInGroup != null && restoresInGroup < 1) {
				throw invalid("drain.restores-in-group", restoresInGroup, "an integer of at least 1, or unset");
			}
		}

		void addKafkaStyleKeys(Map<String, Object> keys) {
			putIfSet(keys, LearnerConfig.DRAIN_TIMEOUT_MS_CONFIG, millis(this.timeout));
			putIfSet(keys, LearnerConfig.DRAIN_HAND_OVER_CONFIG, lowerCase(this.handOver));
			putIfSet(keys, LearnerConfig.DRAIN_STALL_TIMEOUT_MS_CONFIG, millis(this.stallTimeout));
			putIfSet(keys, LearnerConfig.DRAIN_RESTORES_PER_MEMBER_CONFIG, this.restoresPerMember);
			putIfSet(keys, LearnerConfig.DRAIN_RESTORES_IN_GROUP_CONFIG, this.restoresInGroup);
		}

	}

	/**
	 * How a leave and a close meet the group.
	 *
	 * @param acknowledgementTimeout How long a leave waits for the group to answer it (a plan that acknowledges it;
	 * after a rebalance, a plan of that generation) before it says it waits, in the log, health and the endpoint.
	 * Default: the group's rebalance timeout (the main consumer's 'max.poll.interval.ms'), as long as a slow rebalance
	 * may take.
	 * @param unanswered What a leave does once its acknowledgement timeout passed unanswered: 'wait' (keep asking
	 * until answered, cancelled or past its own timeout: a slow group never turns a leave into a cold move) or 'leave'
	 * (leave the group without learners).
	 * @param onClose Whether every close of a dynamic member sends a LeaveGroup, so that its tasks move within a
	 * heartbeat instead of after 'session.timeout.ms' (a static member stays unless drained). False closes as Kafka
	 * Streams and spring-kafka ask: from Kafka 4.2 they stay in the group unless the factory bean has
	 * 'setLeaveGroupOnClose(true)'. A drained instance leaves either way.
	 */
	public record Leave(@Nullable Duration acknowledgementTimeout, @Nullable LeaveUnanswered unanswered,
			@Nullable Boolean onClose) {

		public Leave {
			if (acknowledgementTimeout != null && acknowledgementTimeout.toMillis() < 1) {
				throw invalid("leave.acknowledgement-timeout", acknowledgementTimeout,
						"a duration of at least 1ms, or unset for the group's rebalance timeout");
			}
		}

		void addKafkaStyleKeys(Map<String, Object> keys) {
			putIfSet(keys, LearnerConfig.LEAVE_ACKNOWLEDGEMENT_TIMEOUT_MS_CONFIG, millis(this.acknowledgementTimeout));
			putIfSet(keys, LearnerConfig.LEAVE_UNANSWERED_CONFIG, lowerCase(this.unanswered));
			putIfSet(keys, LearnerConfig.LEAVE_ON_CLOSE_CONFIG, this.onClose);
		}

	}

	/**
	 * How learners are followed while they restore.
	 *
	 * @param probeInterval Follow-up rebalance interval while learners exist, a safety net beside the instances' own
	 * triggers.
	 * @param progressInterval How often an instance with learners publishes their progress (lag, restore rate, ETA)
	 * on the control topic, for the whole group's view: one small record per instance per interval, none without
	 * learners.
	 */
	public record Learners(@Nullable Duration probeInterval, @Nullable Duration progressInterval) {

		public Learners {
			if (probeInterval != null && (probeInterval.isNegative() || probeInterval.isZero())) {
				throw invalid("learners.probe-interval", probeInterval, "a positive duration");
			}
			if (progressInterval != null && progressInterval.toMillis() < 100) {
				throw invalid("learners.progress-interval", progressInterval, "a duration of at least 100ms");
			}
		}

		void addKafkaStyleKeys(Map<String, Object> keys) {
			putIfSet(keys, LearnerConfig.LEARNER_PROBE_INTERVAL_MS_CONFIG, millis(this.probeInterval));
			putIfSet(keys, LearnerConfig.PROGRESS_INTERVAL_MS_CONFIG, millis(this.progressInterval));
		}

	}

	/**
	 * What readiness means.
	 *
	 * @param warm Whether readiness means warm: the instance refuses traffic until every learner placed on it since
	 * it started was promoted or dropped, so that a rollout replaces an old pod only once the new one holds its share
	 * with its state.
	 * @param timeout How long after its start an instance that is not warm yet accepts traffic anyway, and says why
	 * (WARN).
	 */
	public record Readiness(@DefaultValue("false") boolean warm, @Nullable Duration timeout) {

		public Readiness {
			if (timeout != null && timeout.toMillis() < 1) {
				throw invalid("readiness.timeout", timeout, "a duration of at least 1ms");
			}
		}

	}

	/**
	 * Where tasks go and how the group is balanced.
	 *
	 * @param policy Where tasks may run and what running them there costs: a class implementing
	 * 'io.github.incrementalrebalance.planner.PlacementPolicy'. Default: one that honours Kafka's
	 * 'rack.aware.assignment.strategy'.
	 * @param balancingFactor Tolerated ratio of tasks per thread between the most and the least loaded instance, at
	 * least 1.
	 * @param taskWeight What a task weighs when the group is balanced: 'count' (one each: the balancing factor applies
	 * to tasks per thread, as in Kafka) or 'state-size' (a stateful task weighs the records in its changelogs, read by
	 * the group leader each rebalance: the factor applies to records per thread, so one instance does not end up with
	 * all the big stores).
	 * @param taskWeightTimeout With 'state-size' task weights, how long the group leader waits for the changelogs'
	 * start and end offsets each rebalance: every instance's rebalance waits for them, and a round whose offsets came
	 * too late weighs every task one (a WARN, health's 'taskWeight'). Raise it for a cluster that answers offset
	 * requests slowly, lower it to bound how long a slow cluster holds a rebalance.
	 */
	public record Placement(@Nullable Class<?> policy, @Nullable Double balancingFactor,
			@Nullable TaskWeight taskWeight, @Nullable Duration taskWeightTimeout) {

		public Placement {
			if (policy != null && !PlacementPolicy.class.isAssignableFrom(policy)) {
				throw invalid("placement.policy", policy.getName(),
						"a class implementing " + PlacementPolicy.class.getName());
			}
			if (balancingFactor != null && !(balancingFactor >= 1.0 && Double.isFinite(balancingFactor))) {
				throw invalid("placement.balancing-factor", balancingFactor, "a number of at least 1");
			}
			if (taskWeightTimeout != null
					&& (taskWeightTimeout.toMillis() < 1 || taskWeightTimeout.toMillis() > Integer.MAX_VALUE)) {
				throw invalid("placement.task-weight-timeout", taskWeightTimeout, "a duration of 1ms to 24d");
			}
		}

		void addKafkaStyleKeys(Map<String, Object> keys) {
			putIfSet(keys, LearnerConfig.PLACEMENT_POLICY_CLASS_CONFIG, this.policy);
			putIfSet(keys, LearnerConfig.BALANCING_FACTOR_CONFIG, this.balancingFactor);
			putIfSet(keys, LearnerConfig.TASK_WEIGHT_CONFIG, (this.taskWeight != null) ? this.taskWeight.value() : null);
			putIfSet(keys, LearnerConfig.TASK_WEIGHT_TIMEOUT_MS_CONFIG, millis(this.taskWeightTimeout));
		}

	}

	/**
	 * The 'rebalance' health contributor.
	 *
	 * @param problemStatus The status of the 'rebalance' health contributor while a member cannot hand its tasks to
	 * learners (its control topic unreadable or not read yet, its plans unpublished, its instance id used twice, a
	 * round that fell back to Kafka's assignor); the 'problem' detail says why. 'UP' by default: the application still
	 * processes and a restart mends none of these, so a probe or load balancer must not act on it. 'DOWN' (503) or a
	 * status of your own, mapped in 'management.endpoint.health.status', for those that should.
	 * @param streamsError What a member whose Kafka Streams went to ERROR (an uncaught exception with SHUTDOWN_CLIENT:
	 * it processes nothing and is out of its group until restarted) does to the application's availability:
	 * 'readiness' (it refuses traffic, and the 'rebalance' contributor is DOWN), 'liveness' (besides, liveness is
	 * broken, so that Kubernetes restarts the pod) or 'none'. A member that left its group on purpose is never
	 * reported so.
	 */
	public record Health(@DefaultValue("UP") String problemStatus, @DefaultValue("readiness") StreamsError streamsError) {

		public Health {
			if (problemStatus == null || problemStatus.isBlank()) {
				throw invalid("health.problem-status", problemStatus,
						"a health status: UP, DOWN, OUT_OF_SERVICE or a status of your own");
			}
			problemStatus = problemStatus.trim().toUpperCase(Locale.ROOT);
		}

	}

	/**
	 * What a member whose Kafka Streams failed does to the application's availability.
	 */
	public enum StreamsError {

		/** Readiness refuses traffic. */
		READINESS,

		/** Readiness refuses traffic and liveness is broken: Kubernetes restarts the pod. */
		LIVENESS,

		/** Nothing: the application watches Kafka Streams' state itself. */
		NONE

	}

	/**
	 * What a leave does once its acknowledgement timeout passed unanswered.
	 */
	public enum LeaveUnanswered {

		/** Keep asking until the group answers, the leave is cancelled or its own timeout passes. */
		WAIT,

		/** Leave the group without learners. */
		LEAVE

	}

	/**
	 * What an instance does once it drained and left its group.
	 */
	public enum OnDrained {

		/** Close the application context, as Boot's shutdown endpoint does. */
		SHUTDOWN,

		/** Close only Kafka Streams; the application keeps running. */
		STOP_STREAMS

	}

}
