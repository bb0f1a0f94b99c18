package io.github.incrementalrebalance.member;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.github.incrementalrebalance.identity.MemberIdentity;
import io.github.incrementalrebalance.assignor.AssignorStatus;
import io.github.incrementalrebalance.assignor.ChangelogSizes;
import io.github.incrementalrebalance.assignor.LearnerTaskAssignor;
import io.github.incrementalrebalance.assignor.PlanListener;
import io.github.incrementalrebalance.assignor.PreviousPlan;
import io.github.incrementalrebalance.planner.MemberPlan;
import io.github.incrementalrebalance.planner.RebalancingMode;
import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.control.ControlClients;
import io.github.incrementalrebalance.control.ControlRecord;
import io.github.incrementalrebalance.control.ControlTopic;
import io.github.incrementalrebalance.control.ControlTopicException;
import io.github.incrementalrebalance.control.ControlTopicReader;
import io.github.incrementalrebalance.control.ControlTopicWriter;
import io.github.incrementalrebalance.assignor.ControlView;
import io.github.incrementalrebalance.control.DrainProgress;
import io.github.incrementalrebalance.control.LeaveAsk;
import io.github.incrementalrebalance.control.LeaveRecord;
import io.github.incrementalrebalance.control.PlanEpoch;
import io.github.incrementalrebalance.control.PlanPublisher;
import io.github.incrementalrebalance.control.PlanRecord;
import io.github.incrementalrebalance.control.ProgressRecord.LearnerProgress;
import io.github.incrementalrebalance.control.RejoinRequest;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.LagInfo;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.TopologyDescription;
import org.apache.kafka.streams.processor.TaskId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything incremental-rebalance runs inside one Kafka Streams instance, for plain Kafka Streams applications:
 * <pre>
 * MemberRuntime runtime = MemberRuntime.create(props);
 * KafkaStreams streams = new KafkaStreams(topology, runtime.configure(props), runtime.clientSupplier(supplier));
 * runtime.attach(streams, topology.describe()).start();
 * streams.start();
 * ...
 * runtime.leave(Optional.of(Duration.ofMinutes(5)), "operator");
 * </pre>
 * It wires the learner assignor and the control topic into the Streams config, names the member with client tags,
 * wraps the main consumers, watches this member's learners and runs its leave state machine.
 */
public final class MemberRuntime implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(MemberRuntime.class);

	private static final AtomicBoolean LEAVE_PATH_LOGGED = new AtomicBoolean();

	private static final Duration CHECK_INTERVAL = Duration.ofMillis(250);

	private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

	/** How long a start waits for the control topic to be read before Kafka Streams start anyway. */
	static final Duration START_WAIT = Duration.ofSeconds(10);

	private static final Duration OPEN_TIMEOUT = Duration.ofSeconds(10);

	private static final Duration FIRST_OPEN_RETRY = Duration.ofSeconds(1);

	private static final Duration LAST_OPEN_RETRY = Duration.ofSeconds(30);

	private final Map<String, Object> streamsConfig;

	private final LearnerConfig config;

	private volatile MemberIdentity identity;

	private boolean rackWarned;

	private final String controlTopic;

	private final ControlTopicReader reader;

	private final ControlTopicWriter writer;

	private final ChangelogSizeReader changelogSizes;

	private final AssignorStatus assignorStatus = new AssignorStatus();

	private final Clock clock;

	private volatile MemberClientSupplier clientSupplier;

	/** Publishes the plans of this start's stream threads when they lead; made by {@link #configure}. */
	private volatile PlanPublisher publisher;

	private KafkaStreams streams;

	private volatile Drain drain;

	private volatile LearnerWatcher watcher;

	private volatile LearnerProgressReporter progressReporter;

	private final List<Consumer<List<LearnerProgress>>> progressListeners = new CopyOnWriteArrayList<>();

	private StoreTasks storeTasks;

	private volatile Supplier<Map<TaskId, Long>> learnerLags;

	private final List<Consumer<MemberState>> stateListeners = new CopyOnWriteArrayList<>();

	private volatile boolean duplicateReported;

	/** Stops Kafka Streams for its owner once a leave ended; null: this runtime closes them itself. */
	private volatile Runnable streamsStopper;

	private volatile ScheduledExecutorService scheduler;

	/** Why the control topic is not opened (checked, created) yet; null once it is, or while stopped. */
	private volatile String openProblem;

	private boolean closed;

	private MemberRuntime(Map<String, Object> streamsConfig, Clock clock) {
		this.streamsConfig = streamsConfig;
		this.config = new LearnerConfig(streamsConfig);
		// made once here, so that a policy that cannot be made stops start-up rather than every rebalance's plan
		this.config.placementPolicy();
		this.clock = clock;
		String instanceId = this.config.instanceId().orElseGet(MemberRuntime::defaultInstanceId);
		this.identity = MemberIdentity.newIncarnation(instanceId, this.config.rebalancingMode(), clock.instant());
		String applicationId = String.valueOf(streamsConfig.get(StreamsConfig.APPLICATION_ID_CONFIG));
		this.controlTopic = this.config.controlTopic(applicationId);
		this.reader = new ControlTopicReader(streamsConfig, this.controlTopic);
		this.writer = new ControlTopicWriter(streamsConfig, this.controlTopic);
		this.changelogSizes = new ChangelogSizeReader(new ControlClients(streamsConfig, applicationId + "-rebalance-sizes"));
		if (this.config.rejoinRequests()) {
			this.reader.addListener(this::onControlRecord);
		}
	}

	/**
	 * A runtime for the instance configured by a Kafka Streams config.
	 * @param streamsConfig the config (application id, bootstrap, security, the learner keys)
	 * @return the runtime
	 */
	public static MemberRuntime create(Map<?, ?> streamsConfig) {
		Map<String, Object> copy = new HashMap<>();
		streamsConfig.forEach((key, value) -> copy.put(String.valueOf(key), value));
		LearnerConfig.requireClassicGroupProtocol(copy, "the Kafka Streams config");
		if (LEAVE_PATH_LOGGED.compareAndSet(false, true)) {
			logger.info(ClientCapabilities.detected().leavePath());
		}
		return new MemberRuntime(copy, Clock.systemUTC());
	}

	/**
	 * The default instance id: the pod name in Kubernetes ({@code HOSTNAME}, its last 30 characters), else
	 * {@code <short-host>-<pid>}.
	 */
	static String defaultInstanceId() {
		String hostname = System.getenv("HOSTNAME");
		String base;
		if (hostname != null && !hostname.isBlank()) {
			base = hostname;
		}
		else {
			String host;
			try {
				host = InetAddress.getLocalHost().getHostName();
			}
			catch (UnknownHostException ex) {
				host = "instance";
			}
			base = host.split("\\.")[0] + "-" + ManagementFactory.getRuntimeMXBean().getPid();
		}
		String sanitized = base.replaceAll("[^A-Za-z0-9._-]", "-");
		return (sanitized.length() > 30) ? sanitized.substring(sanitized.length() - 30) : sanitized;
	}

	public MemberIdentity identity() {
		return this.identity;
	}

	public String controlTopic() {
		return this.controlTopic;
	}

	public ControlTopicReader controlView() {
		return this.reader;
	}

	public AssignorStatus assignorStatus() {
		return this.assignorStatus;
	}

	/**
	 * The trigger of this member's main consumers.
	 * @return the trigger, once the client supplier exists
	 */
	public Optional<RebalanceTrigger> rebalanceTrigger() {
		return Optional.ofNullable(this.clientSupplier).map(MemberClientSupplier::rebalanceTrigger);
	}

	/**
	 * The Kafka Streams config with everything this library needs: the learner assignor (mode incremental), the
	 * member's client tags and the objects the assignor reads.
	 * @param properties the application's Kafka Streams config
	 * @return a copy to build {@code KafkaStreams} with
	 * @throws IllegalArgumentException when the application set its own {@code task.assignor.class} in mode
	 * incremental
	 * @throws org.apache.kafka.common.config.ConfigException when it selects {@code group.protocol=streams}
	 */
	public synchronized Properties configure(Properties properties) {
		LearnerConfig.requireClassicGroupProtocol(properties, "the Kafka Streams config");
		if (this.streams != null) {
			renewIncarnation();
		}
		Properties configured = new Properties();
		configured.putAll(properties);
		if (this.config.rebalancingMode() == RebalancingMode.INCREMENTAL) {
			Object assignor = properties.get(StreamsConfig.TASK_ASSIGNOR_CLASS_CONFIG);
			if (assignor != null && !LearnerTaskAssignor.class.getName().equals(String.valueOf(assignor))) {
				throw new IllegalArgumentException("task.assignor.class is set to " + assignor
						+ ": in stream.rebalancing.mode=incremental incremental-rebalance needs "
						+ LearnerTaskAssignor.class.getName() + "; remove it, or use mode upgrading");
			}
			configured.put(StreamsConfig.TASK_ASSIGNOR_CLASS_CONFIG, LearnerTaskAssignor.class.getName());
			if (!this.rackWarned) {
				this.rackWarned = true;
				warnOfRackAwareStrategy(properties);
			}
		}
		this.identity.clientTags()
			.forEach((key, value) -> configured.put(StreamsConfig.CLIENT_TAG_PREFIX + key, value));
		configured.put(ControlView.CONFIG, this.reader);
		this.publisher = new PlanPublisher(this.writer, this.reader, this.identity.instanceId(),
				this.config.leaveRecordRetention(), this.clock);
		configured.put(PlanListener.CONFIG, this.publisher);
		configured.put(PreviousPlan.CONFIG, this.publisher);
		configured.put(AssignorStatus.CONFIG, this.assignorStatus);
		configured.put(ChangelogSizes.CONFIG, this.changelogSizes);
		return configured;
	}

	/**
	 * A Kafka Streams built again with this runtime (after a drain with {@code stop-streams}, or a stop and start of
	 * the application's Kafka Streams) is a new start of the member: a new incarnation, so that no leave, plan or
	 * drained flag of the earlier start applies to it.
	 */
	private void renewIncarnation() {
		MemberIdentity earlier = this.identity;
		stopChecks();
		this.identity = MemberIdentity.newIncarnation(earlier.instanceId(), earlier.mode(), this.clock.instant());
		this.streams = null;
		this.clientSupplier = null;
		this.drain = null;
		this.watcher = null;
		logger.info("{} starts again as incarnation {} (was {})", earlier.instanceId(), this.identity.incarnation(),
				earlier.incarnation());
	}

	/**
	 * Rack-aware placement needs every member's {@code client.rack}.
	 */
	private static void warnOfRackAwareStrategy(Properties properties) {
		Object strategy = properties.get(StreamsConfig.RACK_AWARE_ASSIGNMENT_STRATEGY_CONFIG);
		if (strategy == null
				|| StreamsConfig.RACK_AWARE_ASSIGNMENT_STRATEGY_NONE.equals(String.valueOf(strategy).trim())) {
			return;
		}
		boolean rack = properties.get(ConsumerConfig.CLIENT_RACK_CONFIG) != null
				|| properties.get(StreamsConfig.consumerPrefix(ConsumerConfig.CLIENT_RACK_CONFIG)) != null
				|| properties.get(StreamsConfig.mainConsumerPrefix(ConsumerConfig.CLIENT_RACK_CONFIG)) != null;
		if (!rack) {
			logger.warn("rack.aware.assignment.strategy={} needs client.rack on every member, and this one has none: "
					+ "until every member has one, tasks are placed by warmth and load", strategy);
		}
	}

	/**
	 * The client supplier to build {@code KafkaStreams} with.
	 * @param applicationSupplier the application's own supplier, which still makes every client
	 * @return the member supplier
	 */
	public synchronized MemberClientSupplier clientSupplier(KafkaClientSupplier applicationSupplier) {
		if (this.clientSupplier == null) {
			this.clientSupplier = new MemberClientSupplier(applicationSupplier,
					new LeaveOnClose(this.config.leaveOnClose()), ClientCapabilities.detected());
			RebalanceTrigger trigger = this.clientSupplier.rebalanceTrigger();
			trigger.addGenerationListener((generation) -> {
				PlanPublisher plans = this.publisher;
				if (plans != null) {
					plans.generationCompleted(generation);
				}
			});
			if (this.config.rejoinRequests()) {
				trigger.addEnforcementListener((reason) -> askOthersToRejoin(trigger, reason));
			}
		}
		return this.clientSupplier;
	}

	/**
	 * This member started a rebalance for a hand-over, or joins one by itself (its first join, the round after a
	 * revoke): ask the others to rejoin now (off the stream thread, which must not wait for the cluster).
	 */
	private void askOthersToRejoin(RebalanceTrigger trigger, String reason) {
		MemberIdentity self = this.identity;
		// a new member completed no generation: the last one planned is what the others have completed
		int generation = (trigger.observedGeneration() >= 0) ? trigger.observedGeneration()
				: this.reader.planEpoch().map(PlanEpoch::generation).orElse(PlanEpoch.UNKNOWN_GENERATION);
		RejoinRequest request = new RejoinRequest(self.instanceId(), self.incarnation(), generation, reason,
				this.clock.instant());
		CompletableFuture.runAsync(() -> this.writer.write(request).whenComplete((written, failure) -> {
			if (failure != null) {
				logger.warn("Could not ask the other members to rejoin ({}): they rejoin at their next heartbeat",
						reason, failure);
			}
		}));
	}

	/**
	 * Follow what the other members announce on the control topic (on the reader's thread: only records a request):
	 * a rebalance one of them started for a hand-over, and the end of a member that just left the group, whose
	 * LeaveGroup the others would otherwise learn of at their next heartbeat, unless this member completed a rebalance
	 * since the plan that still had it.
	 */
	private void onControlRecord(ControlRecord record) {
		MemberClientSupplier supplier = this.clientSupplier;
		if (supplier == null) {
			return;
		}
		RebalanceTrigger trigger = supplier.rebalanceTrigger();
		MemberIdentity self = this.identity;
		if (record instanceof RejoinRequest rejoin) {
			boolean own = rejoin.instanceId().equals(self.instanceId()) && rejoin.incarnation().equals(self.incarnation());
			if (!own && rejoin.generation() >= trigger.observedGeneration()) {
				trigger.follow(rejoin.reason() + " (" + self.instanceId() + " rejoins as " + rejoin.instanceId()
						+ " asked)", rejoin.generation());
			}
		}
		else if (record instanceof LeaveRecord leave && leave.ended().isPresent()
				&& this.reader.plan(leave.instanceId(), leave.incarnation()).isPresent()) {
			int planGeneration = this.reader.planEpoch()
				.map(PlanEpoch::generation)
				.orElse(PlanEpoch.UNKNOWN_GENERATION);
			if (planGeneration >= trigger.observedGeneration()) {
				trigger.follow("incremental-rebalance: " + leave.instanceId() + " left the group ("
						+ leave.ended().get() + ")", planGeneration);
			}
		}
		else if (record instanceof PlanEpoch) {
			ScheduledExecutorService checks = this.scheduler;
			Drain current = this.drain;
			if (checks != null && !checks.isShutdown() && current != null && current.state() == MemberState.LEAVING) {
				// a plan may hand this member's tasks over: act on it now, not at the next periodic check
				checks.execute(this::checkLeave);
			}
		}
	}

	/**
	 * Attach the Kafka Streams instance built with {@link #configure} and {@link #clientSupplier}.
	 * @param kafkaStreams the instance
	 * @param topology its topology, to map store lags to tasks
	 * @return this runtime
	 */
	public synchronized MemberRuntime attach(KafkaStreams kafkaStreams, TopologyDescription topology) {
		Objects.requireNonNull(this.clientSupplier, "build KafkaStreams with clientSupplier(..) first");
		this.streams = kafkaStreams;
		StoreTasks storeTasks = StoreTasks.of(topology);
		this.storeTasks = storeTasks;
		long acceptableLag = acceptableRecoveryLag();
		Supplier<Map<TaskId, Long>> lags = new RecentLags(() -> localLags(storeTasks), this.clock);
		this.watcher = new LearnerWatcher(this.identity, this.reader, lags,
				this.clientSupplier.rebalanceTrigger(), acceptableLag, this.config.learnerRebalance(),
				heartbeatInterval().multipliedBy(2), this.clock);
		this.progressReporter = new LearnerProgressReporter(this.identity, this.writer,
				new LearnerProgressTracker(acceptableLag), this.config.progressInterval(), this.clock);
		this.progressListeners.forEach(this.progressReporter::addListener);
		this.learnerLags = lags;
		this.drain = new Drain(this.identity, this.reader, this.writer, this.clientSupplier.rebalanceTrigger(),
				this.clientSupplier.leaveOnClose(), this.clientSupplier.groupMembership(), this::closeStreams, this::statefulActiveTasks, leaveBounds(),
				this.clock);
		this.drain.addStateListener((state) -> this.stateListeners.forEach((listener) -> listener.accept(state)));
		return this;
	}

	/**
	 * Let the owner of the Kafka Streams' lifecycle stop them once a leave ended, so that its view stays right (a
	 * framework that started them reports them stopped and tells its listeners). Without one, the runtime closes the
	 * attached Kafka Streams itself.
	 * @param stopper stops the attached Kafka Streams and returns once they are closed
	 */
	public void stopStreamsWith(Runnable stopper) {
		this.streamsStopper = Objects.requireNonNull(stopper, "stopper");
	}

	private LeaveBounds leaveBounds() {
		Duration rebalanceTimeout = LearnerConfig.rebalanceTimeout(this.streamsConfig);
		return new LeaveBounds(this.config.leaveAcknowledgementTimeout(rebalanceTimeout), this.config.leaveUnanswered());
	}

	/**
	 * Why this member's leave waits for the group longer than its acknowledgement timeout, while it does: it keeps
	 * asking (a slow rebalance is no reason for a cold move) until answered, cancelled or past its own deadline.
	 * @return the reason, empty when no leave waits unanswered
	 */
	public Optional<String> leaveWaiting() {
		Drain current = this.drain;
		return (current != null) ? current.waiting() : Optional.empty();
	}

	/**
	 * The scale-down timeout configured for this member ({@code scale.down.timeout.ms}).
	 * @return the timeout, empty when unset (a leave then waits for its learners as long as they take)
	 */
	public Optional<Duration> scaleDownTimeout() {
		return this.config.scaleDownTimeout();
	}

	/**
	 * Whether a Kafka Streams instance is the one this runtime is attached to.
	 * @param kafkaStreams the instance
	 * @return true once {@link #attach} was called with it
	 */
	public synchronized boolean isAttachedTo(KafkaStreams kafkaStreams) {
		return this.streams == kafkaStreams;
	}

	/**
	 * Be told of every change of the member's state (on the thread that made it: return fast). A leave ends with
	 * DRAINED, FORCED or LEFT_WITHOUT_LEARNERS ({@link #drainOutcome()} says why), then CLOSED once Kafka Streams
	 * closed.
	 * @param listener gets the new state
	 */
	public void addStateListener(Consumer<MemberState> listener) {
		this.stateListeners.add(listener);
	}

	/**
	 * Start watching the member; call before {@code KafkaStreams.start()}. The control topic is made sure of (created
	 * when missing) and read in the background, retried with back-off while the cluster cannot be reached, so that an
	 * application starts as plain Kafka Streams does, without a reachable broker; {@link #controlTopicProblem()} says
	 * why it is not read meanwhile. This waits up to {@link #START_WAIT} for the topic to be read to its end, so that
	 * the first assignment knows the leave requests when the cluster is there.
	 */
	public void start() {
		startChecks();
		// not holding this runtime's lock: the control topic is opened under it
		if (!this.reader.awaitCaughtUp(START_WAIT)) {
			logger.warn("Control topic {} not read within {} ({}): Kafka Streams start meanwhile; until it is read "
					+ "the group runs Kafka's assignment, without learners, and a leave is refused (health is DOWN)",
					this.controlTopic, START_WAIT, controlTopicProblem().orElse("still reading"));
		}
	}

	private synchronized void startChecks() {
		Objects.requireNonNull(this.streams, "attach(..) first");
		if (this.closed) {
			throw new IllegalStateException("The member runtime of " + this.identity.instanceId() + " is closed");
		}
		stop();
		// three threads: the leave's bounds never wait behind the learners' lag reads or the control topic's opening,
		// which ask the cluster
		ScheduledExecutorService checks = Executors.newScheduledThreadPool(3, (task) -> {
			Thread thread = new Thread(task, "incremental-rebalance-member-" + this.identity.instanceId());
			thread.setDaemon(true);
			return thread;
		});
		this.scheduler = checks;
		this.openProblem = "control topic " + this.controlTopic + " is not checked yet";
		checks.execute(() -> openControlTopic(checks, FIRST_OPEN_RETRY));
		checks.scheduleWithFixedDelay(this::checkLeave, CHECK_INTERVAL.toMillis(), CHECK_INTERVAL.toMillis(),
				TimeUnit.MILLISECONDS);
		checks.scheduleWithFixedDelay(this::checkLearners, CHECK_INTERVAL.toMillis(), CHECK_INTERVAL.toMillis(),
				TimeUnit.MILLISECONDS);
	}

	/**
	 * Make sure the control topic exists, then start reading it; on failure try again later, doubling the pause.
	 */
	private void openControlTopic(ScheduledExecutorService checks, Duration retry) {
		try {
			ControlTopic.ensureExists(this.streamsConfig, this.controlTopic, replicationFactor(),
					this.config.createControlTopic(), OPEN_TIMEOUT);
			synchronized (this) {
				if (this.scheduler != checks) {
					return;
				}
				this.reader.start();
				this.openProblem = null;
			}
		}
		catch (ControlTopicException ex) {
			if (checks.isShutdown()) {
				return;
			}
			String problem = ex.getMessage();
			if (!problem.equals(this.openProblem)) {
				logger.warn("{}; trying again in the background", problem);
			}
			this.openProblem = problem;
			Duration next = retry.multipliedBy(2);
			try {
				checks.schedule(() -> openControlTopic(checks, (next.compareTo(LAST_OPEN_RETRY) > 0) ? LAST_OPEN_RETRY
						: next), retry.toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (RejectedExecutionException stopped) {
				// the member stopped meanwhile
			}
		}
	}

	/**
	 * Ask this member to leave, unless no other member would stay (see {@link #leave(Optional, String, boolean)}).
	 * @param timeout this leave's scale-down timeout; empty for {@code scale.down.timeout.ms}
	 * @param source who asks, for the record
	 * @return whether this call started the leave (false for a repeat)
	 */
	public boolean leave(Optional<Duration> timeout, String source) {
		return leave(timeout, source, false);
	}

	/**
	 * Ask this member to leave: it hands its tasks over to warm learners, then leaves the group and closes Kafka
	 * Streams; {@link #drainOutcome()} then says how it went. In mode upgrading it closes at once with a real
	 * leave-group, and says so.
	 * @param timeout this leave's scale-down timeout; empty for {@code scale.down.timeout.ms}
	 * @param source who asks, for the record
	 * @param force leave even when the last plan shows no other member that would stay (its tasks then have nowhere to
	 * go)
	 * @return whether this call started the leave (false for a repeat)
	 * @throws LeaveRefusedException when the leave cannot start, with the reason
	 */
	public boolean leave(Optional<Duration> timeout, String source, boolean force) {
		// read once: a new start of the member replaces it
		Drain current = this.drain;
		if (current == null) {
			throw new LeaveRefusedException(LeaveRefusedException.Reason.NOT_RUNNING,
					"Kafka Streams of " + this.identity.instanceId() + " has not started", null);
		}
		if (current.state() != MemberState.STABLE) {
			return false;
		}
		KafkaStreams.State streamsState = this.streams.state();
		if (streamsState != KafkaStreams.State.RUNNING && streamsState != KafkaStreams.State.REBALANCING) {
			throw new LeaveRefusedException(LeaveRefusedException.Reason.NOT_RUNNING, "Kafka Streams of "
					+ this.identity.instanceId() + " is " + streamsState + ": only a running instance can leave", null);
		}
		Optional<String> unreadable = controlTopicProblem();
		if (unreadable.isPresent()) {
			throw new LeaveRefusedException(LeaveRefusedException.Reason.CONTROL_TOPIC_UNAVAILABLE, "The "
					+ unreadable.get() + ": no plan could acknowledge the leave of " + this.identity.instanceId()
					+ ", so it would leave without learners; ask again once the control topic is readable", null);
		}
		if (hasDuplicateInstanceId()) {
			throw new LeaveRefusedException(LeaveRefusedException.Reason.DUPLICATE_INSTANCE_ID, "Instance id "
					+ this.identity.instanceId() + " is used by two live members (see the group plan): give each its "
					+ "own incremental.rebalance.instance.id before asking one to leave", null);
		}
		if (!force && isLastStableMember()) {
			throw new LeaveRefusedException(LeaveRefusedException.Reason.LAST_STABLE_MEMBER, "No other member of "
					+ applicationId() + " would stay in the group (last plan): the tasks of " + this.identity.instanceId()
					+ " would have nowhere to go and restore from scratch when an instance comes back. Start another "
					+ "instance first, or ask again with force to leave anyway", null);
		}
		Optional<Duration> bound = timeout.or(this.config::scaleDownTimeout);
		try {
			return current.leave(bound, source, this.config.rebalancingMode() == RebalancingMode.INCREMENTAL);
		}
		catch (IllegalStateException ex) {
			throw new LeaveRefusedException(LeaveRefusedException.Reason.CONTROL_TOPIC_UNAVAILABLE, ex.getMessage(), ex);
		}
	}

	/**
	 * Ask a member of this group to leave, this one or another (from the page of any instance): another member is
	 * asked with the same leave record the command line writes, after the same checks.
	 * @param instanceId the member
	 * @param timeout that leave's scale-down timeout; empty for the member's own
	 * @param source who asks, for the record
	 * @param force leave even when the last plan shows no other member that would stay
	 * @return whether this call asked it (false when it is leaving already)
	 * @throws LeaveRefusedException when it cannot be asked, with the reason
	 */
	public boolean leaveOf(String instanceId, Optional<Duration> timeout, String source, boolean force) {
		if (instanceId.equals(this.identity.instanceId())) {
			return leave(timeout, source, force);
		}
		Optional<String> unreadable = controlTopicProblem();
		if (unreadable.isPresent()) {
			throw new LeaveRefusedException(LeaveRefusedException.Reason.CONTROL_TOPIC_UNAVAILABLE, "The "
					+ unreadable.get() + ": cannot ask " + instanceId + " to leave", null);
		}
		LeaveAsk ask = LeaveAsk.decide(this.reader.plans(), this.reader.planEpoch(), List.of(instanceId), force).get(0);
		if (ask.refusal().isPresent()) {
			throw new LeaveRefusedException(switch (ask.refusal().get()) {
				case UNKNOWN_INSTANCE -> LeaveRefusedException.Reason.UNKNOWN_INSTANCE;
				case DUPLICATE_INSTANCE_ID -> LeaveRefusedException.Reason.DUPLICATE_INSTANCE_ID;
				case NO_MEMBER_WOULD_STAY -> LeaveRefusedException.Reason.LAST_STABLE_MEMBER;
			}, ask.describeRefusal(applicationId()).orElseThrow(), null);
		}
		boolean leaving = this.reader.leaveRecord(instanceId)
			.filter((leave) -> leave.pending() && ask.incarnation().equals(Optional.of(leave.incarnation())))
			.isPresent();
		if (leaving) {
			return false;
		}
		write(ask.request(this.clock.instant(), timeout, source).orElseThrow(), "ask " + instanceId + " to leave");
		return true;
	}

	/**
	 * Cancel the leave of a member of this group, this one or another, if it has not finished.
	 * @param instanceId the member
	 * @return whether a leave was cancelled
	 * @throws LeaveRefusedException when the cancel cannot be written to the control topic
	 */
	public boolean cancelLeaveOf(String instanceId) {
		if (instanceId.equals(this.identity.instanceId())) {
			return cancel();
		}
		Optional<LeaveRecord> leave = this.reader.leaveRecord(instanceId).filter(LeaveRecord::pending);
		if (leave.isEmpty()) {
			return false;
		}
		write(leave.get().cancel("endpoint"), "cancel the leave of " + instanceId);
		return true;
	}

	private void write(LeaveRecord record, String what) {
		try {
			Drain.await(this.writer.write(record), what);
		}
		catch (IllegalStateException ex) {
			throw new LeaveRefusedException(LeaveRefusedException.Reason.CONTROL_TOPIC_UNAVAILABLE, ex.getMessage(), ex);
		}
	}

	/**
	 * The application id of this member's Kafka Streams.
	 * @return the application id
	 */
	public String applicationId() {
		return String.valueOf(this.streamsConfig.get(StreamsConfig.APPLICATION_ID_CONFIG));
	}

	/**
	 * Cancel this member's leave if it has not finished; tasks already moved stay moved.
	 * @return whether a leave was cancelled
	 * @throws LeaveRefusedException when the cancel cannot be written to the control topic (the member stays leaving)
	 */
	public boolean cancel() {
		try {
			Drain current = this.drain;
			return current != null && current.cancel();
		}
		catch (IllegalStateException ex) {
			throw new LeaveRefusedException(LeaveRefusedException.Reason.CONTROL_TOPIC_UNAVAILABLE, ex.getMessage(), ex);
		}
	}

	/**
	 * Why this member cannot do its job right now, if it cannot: the control topic cannot be reached, created or read
	 * (or is not read to its end yet), or the plans it computes as leader cannot be published.
	 * @return the problem, empty when none
	 */
	public Optional<String> controlTopicProblem() {
		if (this.scheduler == null) {
			return this.writer.problem();
		}
		return Optional.ofNullable(this.openProblem)
			.or(this.reader::problem)
			.or(this.reader::unavailable)
			.or(this.writer::problem);
	}

	/**
	 * How the last leave of this member ended.
	 * @return the outcome, empty while not left (stable, leaving, or cancelled)
	 */
	public Optional<DrainOutcome> drainOutcome() {
		Drain current = this.drain;
		return (current != null) ? current.outcome() : Optional.empty();
	}

	/**
	 * Whether the last plan shows no other member that is not leaving; false while no plan is known.
	 */
	private boolean isLastStableMember() {
		if (this.reader.planEpoch().isEmpty()) {
			return false;
		}
		return this.reader.plans().stream()
			.filter((plan) -> !plan.instanceId().equals(this.identity.instanceId()))
			.noneMatch((plan) -> !plan.plan().leaving());
	}

	private int statefulActiveTasks() {
		return (int) this.streams.metadataForLocalThreads().stream()
			.flatMap((thread) -> thread.activeTasks().stream())
			.filter((task) -> !this.storeTasks.storesOf(task.taskId()).isEmpty())
			.count();
	}

	/**
	 * Whether the last plan found another live member with this instance id.
	 * @return true when the id is duplicated
	 */
	public boolean hasDuplicateInstanceId() {
		return this.reader.planEpoch()
			.map((epoch) -> epoch.duplicateInstanceIds().contains(this.identity.instanceId()))
			.orElse(false);
	}

	/**
	 * This member's tasks: what it runs, learns and keeps standby, with the local lag of learners and standbys.
	 * @return the tasks, as of Kafka Streams' last assignment and the last plan
	 */
	public List<TaskState> tasks() {
		Supplier<Map<TaskId, Long>> recentLags = this.learnerLags;
		if (this.streams == null || recentLags == null) {
			return List.of();
		}
		Optional<MemberPlan> plan = this.reader.plan(this.identity.instanceId(), this.identity.incarnation())
			.map(PlanRecord::plan);
		Set<TaskId> beingLearned = plan.map(MemberPlan::beingLearned).orElse(Collections.emptySortedSet());
		Set<TaskId> learning = plan.map((p) -> p.learning().keySet()).orElse(Set.of());
		long acceptableLag = acceptableRecoveryLag();
		Set<ThreadMetadata> threads = this.streams.metadataForLocalThreads();
		// each lag read is a ListOffsets call to the cluster: only when there are standbys to report, and shared with
		// the learner checks and the other meters of one scrape
		Map<TaskId, Long> lags = threads.stream().anyMatch((thread) -> !thread.standbyTasks().isEmpty())
				? recentLags.get() : Map.of();
		List<TaskState> tasks = new ArrayList<>();
		for (ThreadMetadata thread : threads) {
			for (TaskMetadata active : thread.activeTasks()) {
				TaskId task = active.taskId();
				tasks.add(new TaskState(task,
						beingLearned.contains(task) ? TaskRole.BEING_LEARNED : TaskRole.ACTIVE,
						this.storeTasks.storesOf(task), OptionalLong.empty(), false));
			}
			for (TaskMetadata standby : thread.standbyTasks()) {
				TaskId task = standby.taskId();
				OptionalLong lag = lags.containsKey(task) ? OptionalLong.of(lags.get(task)) : OptionalLong.empty();
				boolean learner = learning.contains(task);
				tasks.add(new TaskState(task, learner ? TaskRole.LEARNING : TaskRole.STANDBY,
						this.storeTasks.storesOf(task), lag,
						learner && lag.isPresent() && lag.getAsLong() <= acceptableLag));
			}
		}
		tasks.sort(Comparator.comparing(TaskState::task));
		return tasks;
	}

	/**
	 * This member's learners as last sampled: lag, restore rate, and when each will be ready.
	 * @return their progress, empty without learners
	 */
	public List<LearnerProgress> learnerProgress() {
		LearnerProgressReporter reporter = this.progressReporter;
		return (reporter != null) ? reporter.current() : List.of();
	}

	/**
	 * Be told of each sample of this member's learners (twice a second while it has some, once more when they are
	 * gone).
	 * @param listener gets the learners' progress
	 */
	public void addProgressListener(Consumer<List<LearnerProgress>> listener) {
		this.progressListeners.add(listener);
		LearnerProgressReporter reporter = this.progressReporter;
		if (reporter != null) {
			reporter.addListener(listener);
		}
	}

	/**
	 * This member's drain as the group's progress records show it, while it leaves.
	 * @return its drain, empty unless the current plan shows it leaving
	 */
	public Optional<DrainProgress> drainProgress() {
		return DrainProgress.of(this.reader.plans(), this.reader.progress(), this.reader.leaveRecords(),
				this.clock.instant())
			.stream()
			.filter((drain) -> drain.instanceId().equals(this.identity.instanceId())
					&& drain.incarnation().equals(this.identity.incarnation()))
			.findFirst();
	}

	public MemberState state() {
		Drain current = this.drain;
		return (current != null) ? current.state() : MemberState.STABLE;
	}

	public Optional<Instant> deadline() {
		Drain current = this.drain;
		return (current != null) ? current.deadline() : Optional.empty();
	}

	private void checkLeave() {
		if (!this.duplicateReported && hasDuplicateInstanceId()) {
			this.duplicateReported = true;
			logger.error("Another live member uses instance id {}: the operator cannot tell them apart, and a leave "
					+ "for this id is refused; set incremental.rebalance.instance.id", this.identity.instanceId());
		}
		Drain current = this.drain;
		if (current == null) {
			return;
		}
		try {
			current.check();
		}
		catch (RuntimeException ex) {
			logger.warn("Leave check of {} failed", this.identity.instanceId(), ex);
		}
	}

	private void checkLearners() {
		MemberState state = state();
		LearnerWatcher current = this.watcher;
		if (current == null || (state != MemberState.STABLE && state != MemberState.LEAVING)) {
			return;
		}
		try {
			current.check();
			this.progressReporter.check(this.reader.plan(this.identity.instanceId(), this.identity.incarnation()),
					this.learnerLags);
		}
		catch (RuntimeException ex) {
			logger.warn("Learner check of {} failed", this.identity.instanceId(), ex);
		}
	}

	private Map<TaskId, Long> localLags(StoreTasks storeTasks) {
		Map<TaskId, Long> lags = new HashMap<>();
		for (Map.Entry<String, Map<Integer, LagInfo>> store : this.streams.allLocalStorePartitionLags().entrySet()) {
			store.getValue().forEach((partition, lag) -> storeTasks.taskOf(store.getKey(), partition)
				.ifPresent((task) -> lags.merge(task, lag.offsetLag(), Long::sum)));
		}
		return lags;
	}

	private void closeStreams() {
		Runnable stopper = this.streamsStopper;
		if (stopper != null) {
			stopper.run();
			return;
		}
		if (!this.streams.close(CLOSE_TIMEOUT)) {
			logger.warn("Kafka Streams of {} did not close within {}", this.identity.instanceId(), CLOSE_TIMEOUT);
		}
	}

	private long acceptableRecoveryLag() {
		Object value = this.streamsConfig.get(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG);
		return (value != null) ? Long.parseLong(String.valueOf(value)) : 10_000L;
	}

	private Duration heartbeatInterval() {
		for (String key : new String[] { StreamsConfig.mainConsumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG),
				StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG),
				ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG }) {
			Object value = this.streamsConfig.get(key);
			if (value != null) {
				return Duration.ofMillis(Long.parseLong(String.valueOf(value)));
			}
		}
		return Duration.ofSeconds(3);
	}

	private int replicationFactor() {
		Object value = this.streamsConfig.get(StreamsConfig.REPLICATION_FACTOR_CONFIG);
		return (value != null) ? Integer.parseInt(String.valueOf(value)) : -1;
	}

	/**
	 * Stop reading the control topic and watching the member once its Kafka Streams stopped; {@link #attach} and
	 * {@link #start} can run again for the next Kafka Streams built with this runtime.
	 */
	public synchronized void stop() {
		stopChecks();
		this.reader.close();
		this.changelogSizes.close();
	}

	private void stopChecks() {
		if (this.scheduler != null) {
			this.scheduler.shutdownNow();
			this.scheduler = null;
		}
		this.openProblem = null;
	}

	@Override
	public synchronized void close() {
		stop();
		this.writer.close();
		this.closed = true;
	}

}
