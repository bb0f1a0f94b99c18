package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import io.github.incrementalrebalance.assignor.AssignorStatus;
import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.config.StartRefusedException;
import io.github.incrementalrebalance.control.ControlTopicReader;
import io.github.incrementalrebalance.control.DrainProgress;
import io.github.incrementalrebalance.control.LeaveCancel;
import io.github.incrementalrebalance.control.ProgressRecord.LearnerProgress;
import io.github.incrementalrebalance.identity.MemberIdentity;
import org.apache.kafka.streams.GroupProtocol;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.TopologyDescription;
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
 * wraps the main consumers, watches its learners and runs its leave. A facade: the Streams config
 * ({@link StreamsWiring}), each start of Kafka Streams ({@link MemberStarts}, {@link MemberStart}), the control topic
 * ({@link ControlTopicLifecycle}) and the leave ({@link LeaveGate}) are parts of their own; any thread may call it.
 */
public final class MemberRuntime implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(MemberRuntime.class);

	private static final AtomicBoolean LEAVE_PATH_LOGGED = new AtomicBoolean();

	private final MemberContext context;

	private final ChangelogSizeReader changelogSizes;

	private final AssignorStatus assignorStatus = new AssignorStatus();

	private final ControlTopicLifecycle controlTopicLife;

	private final LeaveGate leaveGate;

	private final MemberStarts starts;

	private final List<Consumer<MemberState>> stateListeners = new CopyOnWriteArrayList<>();

	private final List<Consumer<List<LearnerProgress>>> progressListeners = new CopyOnWriteArrayList<>();

	private boolean closed;

	private MemberRuntime(Map<String, Object> streamsConfig, MemberClocks clocks) {
		this.context = MemberContext.of(streamsConfig, clocks);
		LearnerConfig config = this.context.config();
		this.changelogSizes = ChangelogSizeReader.of(this.context);
		this.controlTopicLife = new ControlTopicLifecycle(this.context);
		this.leaveGate = new LeaveGate(this.context, this.controlTopicLife::problem);
		String instanceId = MemberIdentity.instanceIdFor(config.instanceId());
		this.starts = new MemberStarts(this.context,
				MemberIdentity.newIncarnation(instanceId, config.rebalancingMode(), clocks.wall().instant()),
				new StreamsWiring(config, this.context.reader(), this.assignorStatus, this.changelogSizes),
				this.controlTopicLife, new RejoinCoordination(this.context),
				(state) -> this.stateListeners.forEach((listener) -> listener.accept(state)), this.progressListeners);
	}

	/**
	 * A runtime for the instance configured by a Kafka Streams config.
	 * @param streamsConfig the config (application id, bootstrap, security, the learner keys)
	 * @return the runtime
	 */
	public static MemberRuntime create(Map<?, ?> streamsConfig) {
		Map<String, Object> copy = new HashMap<>();
		streamsConfig.forEach((key, value) -> copy.put(String.valueOf(key), value));
		if (LEAVE_PATH_LOGGED.compareAndSet(false, true)) {
			logger.info(ClientCapabilities.detected().leavePath());
		}
		return new MemberRuntime(copy, MemberClocks.system());
	}

	public MemberIdentity identity() {
		return this.starts.wiring().identity();
	}

	/**
	 * @return the group protocol of the latest start's config: under {@code streams} a leave hands over once every
	 * instance that stays holds a ready standby of each task, instead of through learners
	 */
	public GroupProtocol groupProtocol() {
		return this.starts.wiring().protocol();
	}

	public String controlTopic() {
		return this.context.controlTopic();
	}

	public ControlTopicReader controlView() {
		return this.context.reader();
	}

	public AssignorStatus assignorStatus() {
		return this.assignorStatus;
	}

	/** @return the trigger of this member's main consumers, once the client supplier exists */
	public Optional<RebalanceTrigger> rebalanceTrigger() {
		return Optional.ofNullable(this.starts.wiring().clientsOrNull()).map(MemberClientSupplier::rebalanceTrigger);
	}

	/**
	 * The Kafka Streams config with everything this library needs: the learner assignor (mode incremental), the
	 * member's client tags and the objects the assignor reads. Called again for Kafka Streams built again, it begins a
	 * new start of the member: a new incarnation, to which no leave, plan or drained flag of the earlier start applies.
	 * @param properties the application's Kafka Streams config
	 * @return a copy to build {@code KafkaStreams} with
	 * @throws io.github.incrementalrebalance.config.StartRefusedException when it sets its own
	 * {@code task.assignor.class} in mode incremental on the classic protocol, or a {@code group.protocol} Kafka
	 * Streams does not have
	 */
	public synchronized Properties configure(Properties properties) {
		return this.starts.configure(properties);
	}

	/**
	 * The client supplier to build {@code KafkaStreams} with.
	 * @param applicationSupplier the application's own supplier, which still makes every client
	 * @return the member supplier
	 */
	public MemberClientSupplier clientSupplier(KafkaClientSupplier applicationSupplier) {
		return this.starts.clients(applicationSupplier);
	}

	/**
	 * Attach the Kafka Streams instance built with {@link #configure} and {@link #clientSupplier}.
	 * @param kafkaStreams the instance
	 * @param topology its topology, to map store lags to tasks
	 * @return this runtime
	 */
	public synchronized MemberRuntime attach(KafkaStreams kafkaStreams, TopologyDescription topology) {
		this.starts.attach(kafkaStreams, topology);
		return this;
	}

	/**
	 * Let the owner of the Kafka Streams' lifecycle stop them once a leave ended, so that its view stays right (a
	 * framework that started them reports them stopped and tells its listeners). Without one, the runtime closes the
	 * attached Kafka Streams itself.
	 * @param stopper stops the attached Kafka Streams and returns once they are closed
	 */
	public void stopStreamsWith(Runnable stopper) {
		this.starts.stopStreamsWith(stopper);
	}

	/**
	 * Why this member's leave waits for the group longer than its acknowledgement timeout, while it does: it keeps
	 * asking (a slow rebalance is no reason for a cold move) until answered, cancelled or past its own deadline.
	 * @return the reason, empty when no leave waits unanswered
	 */
	public Optional<String> leaveWaiting() {
		MemberStart current = this.starts.attached();
		return (current != null) ? current.drain().waiting() : Optional.empty();
	}

	/**
	 * @return why this member's drain gets nowhere, while it does (its learners have not come closer to ready for
	 * {@code incremental.rebalance.drain.stall.timeout.ms}); it goes on
	 */
	public Optional<String> drainStalled() {
		MemberStart current = this.starts.attached();
		return (current != null) ? current.drain().stalled() : Optional.empty();
	}

	/** @return {@code incremental.rebalance.drain.timeout.ms}, empty when unset (a leave then waits for its learners) */
	public Optional<Duration> drainTimeout() {
		return this.context.config().drainTimeout();
	}

	/** @return the main consumer's {@code group.instance.id}, empty for a dynamic member */
	public Optional<String> groupInstanceId() {
		return LearnerConfig.groupInstanceId(this.context.streamsConfig());
	}

	/**
	 * The state of the attached Kafka Streams: {@code ERROR} says they process nothing and are out of their group
	 * until restarted (a stream thread's uncaught exception with {@code SHUTDOWN_CLIENT}).
	 * @return the state, empty before Kafka Streams were attached (an application that starts them itself, later)
	 */
	public Optional<KafkaStreams.State> streamsState() {
		MemberStart current = this.starts.attached();
		return (current != null) ? Optional.of(current.streams().state()) : Optional.empty();
	}

	/**
	 * @param kafkaStreams a Kafka Streams instance
	 * @return whether it is the one this runtime is attached to
	 */
	public boolean isAttachedTo(KafkaStreams kafkaStreams) {
		MemberStart current = this.starts.attached();
		return current != null && current.streams() == kafkaStreams;
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
	 * Start watching the member; call before {@code KafkaStreams.start()}. The control topic is opened in the background
	 * ({@link ControlTopicLifecycle}); this waits up to the control topic's timeout for it to be read to its end, so
	 * that the first assignment knows the leave requests when the cluster is there, and a slow cluster the application
	 * allows for is waited for as long as it allows.
	 */
	public void start() {
		startChecks();
		Duration wait = this.context.config().controlTopicTimeout();
		// not holding this runtime's lock: the control topic is opened under it
		if (!this.context.reader().awaitCaughtUp(wait)) {
			logger.warn("Control topic {} not read within {} ({}, {}): Kafka Streams start meanwhile; until it is read "
					+ "the group runs Kafka's assignment, without learners, and a leave is refused (health says why)",
					this.context.controlTopic(), wait, LearnerConfig.CONTROL_TOPIC_TIMEOUT_MS_CONFIG,
					controlTopicProblem().orElse("still reading"));
		}
		Set<String> others = this.context.reader().otherApplications();
		if (!others.isEmpty()) {
			// each leader would delete the other's plans and leaves: refuse rather than break both applications
			stop();
			String application = this.context.applicationId();
			throw new StartRefusedException(LearnerConfig.CONTROL_TOPIC_CONFIG + "=" + this.context.controlTopic(),
					"that control topic holds the plans of application " + String.join(", ", others) + " as well as "
							+ application + "'s, and each one's leader would delete the other's plans and leaves",
					"a control topic of " + application + "'s own: unset for "
							+ LearnerConfig.defaultControlTopic(application) + ", or a name no other application uses");
		}
	}

	private synchronized void startChecks() {
		if (this.closed) {
			throw new IllegalStateException("The member runtime of " + identity().instanceId() + " is closed");
		}
		stop();
		this.starts.startChecks();
	}

	/**
	 * Ask this member to leave, unless no other member would stay: {@link #leave(Optional, String, boolean)} without
	 * force.
	 */
	public boolean leave(Optional<Duration> timeout, String source) {
		return leave(timeout, source, false);
	}

	/**
	 * Ask this member to leave: it hands its tasks over to warm learners, then leaves the group and closes Kafka
	 * Streams; {@link #drainOutcome()} then says how it went. In mode upgrading it closes at once with a real
	 * leave-group, and says so.
	 * @param timeout this leave's drain timeout; empty for {@code incremental.rebalance.drain.timeout.ms}
	 * @param source who asks, for the record
	 * @param force leave even when the last plan shows no other member that would stay (its tasks then have nowhere to
	 * go)
	 * @return whether this call started the leave (false for a repeat)
	 * @throws LeaveRefusedException when the leave cannot start, with the reason
	 * @throws LeaveOutcomeUnknownException when whether its request reached the control topic is unknown
	 */
	public boolean leave(Optional<Duration> timeout, String source, boolean force) {
		return this.leaveGate.leave(this.starts.attached(), identity().instanceId(), timeout, source, force);
	}

	/**
	 * Ask a member of this group to leave, this one or another (from the page of any instance): another member is
	 * asked with the same leave record the command line writes, after the same checks.
	 * @param instanceId the member
	 * @param timeout that leave's drain timeout; empty for the member's own
	 * @param source who asks, for the record
	 * @param force leave even when the last plan shows no other member that would stay
	 * @return whether this call asked it (false when it is leaving already)
	 * @throws LeaveRefusedException when it cannot be asked, with the reason
	 * @throws LeaveOutcomeUnknownException when whether the request reached the control topic is unknown
	 */
	public boolean leaveOf(String instanceId, Optional<Duration> timeout, String source, boolean force) {
		if (instanceId.equals(identity().instanceId())) {
			return leave(timeout, source, force);
		}
		return this.leaveGate.leaveOfAnother(instanceId, timeout, source, force);
	}

	/**
	 * The application shuts down while this member leaves (a SIGTERM after an operator's leave): the drain goes on and
	 * ends within {@code bound}, {@code forced} with its count of cold moves if its learners are not ready by then,
	 * and recorded like any leave. A deadline of its own that comes sooner stays.
	 * @param bound how long the shutdown leaves the drain
	 * @return whether a leave was under way
	 */
	public boolean endLeaveWithin(Duration bound) {
		MemberStart current = this.starts.attached();
		return current != null && current.drain().endWithin(bound);
	}

	/**
	 * Cancel the leave of a member of this group, this one or another, if it has not finished. Another member answers
	 * on its own: it stays, or it had left (or was handing over) when the cancel came.
	 * @param instanceId the member
	 * @param answerWait how long to wait for another member's answer
	 * @return what came of it; empty when it was not leaving
	 * @throws LeaveRefusedException when the cancel cannot be written to the control topic
	 * @throws LeaveOutcomeUnknownException when whether it reached the control topic is unknown
	 */
	public Optional<LeaveCancel.Result> cancelLeaveOf(String instanceId, Duration answerWait) {
		if (instanceId.equals(identity().instanceId())) {
			return cancel() ? Optional.of(LeaveCancel.Result.of(LeaveCancel.Answer.CANCELLED)) : Optional.empty();
		}
		return this.leaveGate.cancelLeaveOfAnother(instanceId, answerWait);
	}

	/**
	 * Cancel this member's leave if it has not finished; tasks already moved stay moved.
	 * @return whether a leave was cancelled
	 * @throws LeaveRefusedException when the cancel cannot be written to the control topic (the member stays leaving)
	 * @throws LeaveOutcomeUnknownException when whether it reached the control topic is unknown
	 */
	public boolean cancel() {
		return this.leaveGate.cancel(this.starts.attached());
	}

	/** @return the application id of this member's Kafka Streams */
	public String applicationId() {
		return this.context.applicationId();
	}

	/**
	 * Why this member cannot do its job right now, if it cannot: the control topic cannot be reached, created or read
	 * (or is not read to its end yet), or the plans it computes as leader cannot be published.
	 * @return the problem, empty when none
	 */
	public Optional<String> controlTopicProblem() {
		return this.controlTopicLife.problem();
	}

	/**
	 * How the last leave of this member ended.
	 * @return the outcome, empty while not left (stable, leaving, or cancelled)
	 */
	public Optional<DrainOutcome> drainOutcome() {
		MemberStart current = this.starts.attached();
		return (current != null) ? current.drain().outcome() : Optional.empty();
	}

	/** @return whether the last plan found another live member with this instance id */
	public boolean hasDuplicateInstanceId() {
		MemberStart current = this.starts.attached();
		return current != null && current.hasDuplicateInstanceId();
	}

	/**
	 * This member's tasks: what it runs, learns and keeps standby, with the local lag of learners and standbys as the
	 * member last read it ({@link #lagsAge()}). Asks nothing of the cluster on the caller's thread.
	 * @return the tasks, as of Kafka Streams' last assignment and the last plan
	 */
	public List<TaskState> tasks() {
		MemberStart current = this.starts.attached();
		return (current != null) ? current.tasks().tasks(current.plan()) : List.of();
	}

	/**
	 * How old the lags {@link #tasks()} reports are: the member reads them on its own thread, at its next check after
	 * someone took a sample older than a fifth of a second, so an age that keeps growing says the cluster does not
	 * answer.
	 * @return the age, empty before the first read
	 */
	public Optional<Duration> lagsAge() {
		MemberStart current = this.starts.attached();
		return (current != null) ? current.tasks().lagsReadAt()
			.map((readAt) -> Duration.between(readAt, this.context.clocks().elapsed().instant())) : Optional.empty();
	}

	/**
	 * This member's learners as last sampled: lag, restore rate, and when each will be ready.
	 * @return their progress, empty without learners
	 */
	public List<LearnerProgress> learnerProgress() {
		MemberStart current = this.starts.attached();
		return (current != null) ? current.learnerProgress() : List.of();
	}

	/**
	 * Be told of each sample of this member's learners (twice a second while it has some, once more when they are
	 * gone).
	 * @param listener gets the learners' progress
	 */
	public synchronized void addProgressListener(Consumer<List<LearnerProgress>> listener) {
		this.progressListeners.add(listener);
		MemberStart current = this.starts.attached();
		if (current != null) {
			current.addProgressListener(listener);
		}
	}

	/**
	 * This member's drain as the group's progress records show it, while it leaves.
	 * @return its drain, empty unless the current plan shows it leaving
	 */
	public Optional<DrainProgress> drainProgress() {
		MemberIdentity self = identity();
		return DrainProgress.of(this.context.reader(), self.instanceId(), self.incarnation(),
				this.context.clocks().wall().instant());
	}

	public MemberState state() {
		MemberStart current = this.starts.attached();
		return (current != null) ? current.drain().state() : MemberState.STABLE;
	}

	public Optional<Instant> deadline() {
		MemberStart current = this.starts.attached();
		return (current != null) ? current.drain().deadline() : Optional.empty();
	}

	/**
	 * Stop reading the control topic and watching the member once its Kafka Streams stopped; {@link #attach} and
	 * {@link #start} can run again for the next Kafka Streams built with this runtime.
	 */
	public synchronized void stop() {
		this.starts.stopChecks();
		this.controlTopicLife.stop();
		this.changelogSizes.close();
	}

	@Override
	public synchronized void close() {
		stop();
		this.context.writer().close();
		this.closed = true;
	}

}
