package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

import io.github.incrementalrebalance.config.Backoff;
import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.control.ControlClients;
import io.github.incrementalrebalance.control.PlanPublisher;
import io.github.incrementalrebalance.control.PlanRecord;
import io.github.incrementalrebalance.control.ProgressRecord.LearnerProgress;
import io.github.incrementalrebalance.identity.MemberIdentity;
import io.github.incrementalrebalance.planner.MemberPlan;
import org.apache.kafka.streams.GroupProtocol;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.TopologyDescription;
import org.apache.kafka.streams.processor.TaskId;

/**
 * One start of Kafka Streams under a member runtime, with the parts that follow it: the Kafka Streams instance, its
 * identity and clients, the view of its tasks, the learner watcher and progress reporter, and the leave state machine.
 * A new start of Kafka Streams is a new object: nothing of an earlier start (a leave, a plan, a drained flag, a lag
 * sample) carries over. Built on the application's thread when it attaches Kafka Streams; its fields never change, so
 * any thread may read them (each part says which threads may call it).
 */
final class MemberStart {

	/**
	 * The first pause before a leave's end the control topic did not take is written again; it doubles up to the
	 * control topic's timeout.
	 */
	private static final Duration END_RETRY = Duration.ofSeconds(1);

	private final MemberIdentity identity;

	private final MemberClientSupplier clients;

	private final KafkaStreams streams;

	private final LocalTasks tasks;

	private final Drain drain;

	private final LearnerWatcher watcher;

	private final LearnerProgressReporter progress;

	private final MemberContext context;

	private final Optional<StandbyCopies> standbys;

	private final PlanPublisher publisher;

	/**
	 * @param wiring what the start was built with
	 * @param streams the Kafka Streams instance
	 * @param topology its topology, to map store lags to tasks
	 * @param context what every start shares
	 * @param closeStreams closes Kafka Streams once a leave ended
	 */
	MemberStart(StartWiring wiring, KafkaStreams streams, TopologyDescription topology, MemberContext context,
			Runnable closeStreams) {
		this.identity = wiring.identity();
		this.publisher = wiring.publisher();
		this.clients = wiring.clientsOrNull();
		if (this.clients == null) {
			throw new IllegalStateException("build KafkaStreams with clientSupplier(..) first");
		}
		this.streams = streams;
		this.context = context;
		LearnerConfig config = context.config();
		long acceptableLag = context.acceptableRecoveryLag();
		this.tasks = new LocalTasks(streams, topology, acceptableLag, context.clocks().elapsed());
		RebalanceTrigger trigger = this.clients.rebalanceTrigger();
		this.watcher = new LearnerWatcher(this.identity, context.reader(), this.tasks.lags(), trigger, acceptableLag,
				config.learnerRebalance(), LearnerConfig.heartbeatInterval(context.streamsConfig()).multipliedBy(2),
				config.learnerProbeInterval(), context.clocks().elapsed());
		this.progress = new LearnerProgressReporter(this.identity, context.writer(),
				new LearnerProgressTracker(acceptableLag), config.progressInterval(), context.clocks());
		GroupExit exit = new GroupExit(this.identity, context.writer(), context.reader(), this.clients.groupMembership(),
				closeStreams, LearnerConfig.rebalanceTimeout(context.streamsConfig()),
				Backoff.doubling(END_RETRY, config.controlTopicTimeout()));
		this.standbys = (wiring.protocol() == GroupProtocol.STREAMS)
				? Optional.of(new StandbyCopies(this.identity, context.applicationId(), this.tasks::statefulActiveTaskIds,
						context.reader(), ControlClients.ofStreamsGroup(context.streamsConfig()),
						config.controlTopicTimeout(), context.clocks().elapsed()))
				: Optional.empty();
		this.drain = new Drain(this.identity, context.reader(), context.writer(), trigger, this.clients.leaveOnClose(),
				exit, this.tasks::statefulActiveTasks, context.leaveBounds(), context.clocks(), this.standbys);
	}

	MemberIdentity identity() {
		return this.identity;
	}

	KafkaStreams streams() {
		return this.streams;
	}

	RebalanceTrigger trigger() {
		return this.clients.rebalanceTrigger();
	}

	LocalTasks tasks() {
		return this.tasks;
	}

	Drain drain() {
		return this.drain;
	}

	void addProgressListeners(List<Consumer<List<LearnerProgress>>> listeners) {
		listeners.forEach(this.progress::addListener);
	}

	void addProgressListener(Consumer<List<LearnerProgress>> listener) {
		this.progress.addListener(listener);
	}

	List<LearnerProgress> learnerProgress() {
		return this.progress.current();
	}

	/**
	 * This start's plan, as last read from the control topic.
	 * @return the plan, empty while none names this start
	 */
	Optional<MemberPlan> plan() {
		return this.context.reader().plan(this.identity.instanceId(), this.identity.incarnation()).map(PlanRecord::plan);
	}

	/**
	 * Whether the last plan found another live member with this instance id.
	 */
	boolean hasDuplicateInstanceId() {
		return this.context.reader()
			.planEpoch()
			.map((epoch) -> epoch.duplicateInstanceIds().contains(this.identity.instanceId()))
			.orElse(false);
	}

	/**
	 * Follow the learners: ask for a rebalance once they are ready, and sample their progress, while the member is
	 * stable or leaving; read the lags the application's threads asked for. On the runtime's check thread.
	 */
	void checkLearners() {
		this.tasks.readLagsIfWanted();
		MemberState state = this.drain.state();
		if (state != MemberState.STABLE && state != MemberState.LEAVING) {
			return;
		}
		this.watcher.check();
		// under the streams protocol every standby may be the one a leaving member's task moves to
		Set<TaskId> learners = this.standbys.isPresent() ? this.tasks.standbyTaskIds()
				: plan().map((own) -> own.learning().keySet()).orElse(Set.of());
		this.progress.check(learners, this.tasks.lags());
	}

	/**
	 * As the group's leader, record how the leaves of members that left mid-leave without a word ended. On the
	 * runtime's check thread.
	 */
	void checkDepartedLeaves() {
		this.publisher.checkDepartedLeaves();
	}

	/**
	 * Let go of what this start holds beside Kafka Streams, once its checks stopped.
	 */
	void stopped() {
		this.standbys.ifPresent(StandbyCopies::close);
	}

}
