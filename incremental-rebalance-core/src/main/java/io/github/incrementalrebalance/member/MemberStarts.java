package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.function.Consumer;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.control.ControlRecord;
import io.github.incrementalrebalance.control.PlanEpoch;
import io.github.incrementalrebalance.control.PlanPublisher;
import io.github.incrementalrebalance.control.ProgressRecord.LearnerProgress;
import io.github.incrementalrebalance.identity.MemberIdentity;
import org.apache.kafka.streams.GroupProtocol;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.TopologyDescription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The starts of Kafka Streams under one runtime, one after another: what the next start is built with (configured,
 * then given its clients), the attached start, and its checks. A start replaces the one before it whole: the earlier
 * start's checks are stopped, and their threads joined, before the new one is attached. The application's threads
 * configure, attach, start and stop (under the runtime's lock); any thread reads {@link #wiring()} and
 * {@link #attached()}.
 */
final class MemberStarts {

	private static final Logger logger = LoggerFactory.getLogger(MemberStarts.class);

	private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

	private final MemberContext context;

	private final StreamsWiring streamsWiring;

	private final ControlTopicLifecycle controlTopic;

	private final RejoinCoordination rejoin;

	private final Consumer<MemberState> stateListener;

	private final List<Consumer<List<LearnerProgress>>> progressListeners;

	/** What the current start is built with, or the next one once Kafka Streams are configured again. */
	private volatile StartWiring wiring;

	/** The attached start; null before the first attach and between a new configure and its attach. */
	private volatile MemberStart attached;

	/** The checks of the attached start while it runs. */
	private volatile MemberChecks checks;

	/** Stops Kafka Streams for their owner once a leave ended; null: the start closes them itself. */
	private volatile Runnable streamsStopper;

	/**
	 * @param context what every start shares
	 * @param firstStart the identity of the first start
	 * @param streamsWiring puts the library into each start's Kafka Streams config
	 * @param controlTopic the control topic's life, opened by each start's checks
	 * @param rejoin announces and follows rebalances
	 * @param stateListener told of every state change of every start
	 * @param progressListeners told of every learner sample of every start
	 */
	MemberStarts(MemberContext context, MemberIdentity firstStart, StreamsWiring streamsWiring,
			ControlTopicLifecycle controlTopic, RejoinCoordination rejoin, Consumer<MemberState> stateListener,
			List<Consumer<List<LearnerProgress>>> progressListeners) {
		this.context = context;
		this.streamsWiring = streamsWiring;
		this.controlTopic = controlTopic;
		this.rejoin = rejoin;
		this.stateListener = stateListener;
		this.progressListeners = progressListeners;
		this.wiring = wiringOf(firstStart);
		context.reader().addListener(this::onControlRecord);
	}

	private StartWiring wiringOf(MemberIdentity identity) {
		return new StartWiring(identity, new PlanPublisher(this.context.writer(), this.context.reader(),
				identity.instanceId(), this.context.config().leaveRecordRetention(), this.context.clocks().wall(),
				MemberConsumer::joinsOfPollingThread));
	}

	StartWiring wiring() {
		return this.wiring;
	}

	MemberStart attached() {
		return this.attached;
	}

	/**
	 * The config of the next start; once a start is attached, this begins a new one (a new incarnation), after
	 * stopping the checks of the attached one.
	 */
	Properties configure(Properties properties) {
		MemberStart running = this.attached;
		if (running != null && running.identity() == this.wiring.identity()) {
			stopChecks();
			MemberIdentity earlier = running.identity();
			this.wiring = wiringOf(MemberIdentity.newIncarnation(earlier.instanceId(), earlier.mode(),
					this.context.clocks().wall().instant()));
			this.attached = null;
			logger.info("{} starts again as incarnation {} (was {})", earlier.instanceId(),
					this.wiring.identity().incarnation(), earlier.incarnation());
		}
		GroupProtocol protocol = LearnerConfig.groupProtocol(properties);
		if (protocol == GroupProtocol.STREAMS) {
			logger.info("{} runs Kafka's streams group protocol (group.protocol=streams): the broker assigns tasks and "
					+ "places standbys, so no learners are placed; a leave hands over once every instance that stays "
					+ "holds a ready standby of each of its stateful tasks (the group's streams.num.standby.replicas "
					+ "at least the instances that stay)", this.wiring.identity().instanceId());
		}
		this.wiring.protocol(protocol);
		return this.streamsWiring.configure(properties, this.wiring);
	}

	MemberClientSupplier clients(KafkaClientSupplier application) {
		return this.wiring.clients(application, this.context.config(), this.rejoin);
	}

	void attach(KafkaStreams streams, TopologyDescription topology) {
		Objects.requireNonNull(this.wiring.clientsOrNull(), "build KafkaStreams with clientSupplier(..) first");
		MemberStart start = new MemberStart(this.wiring, streams, topology, this.context, () -> closeStreams(streams));
		start.drain().addStateListener(this.stateListener);
		start.addProgressListeners(this.progressListeners);
		stopChecks();
		this.attached = start;
	}

	void stopStreamsWith(Runnable stopper) {
		this.streamsStopper = Objects.requireNonNull(stopper, "stopper");
	}

	private void closeStreams(KafkaStreams streams) {
		Runnable stopper = this.streamsStopper;
		if (this.wiring.protocol() == GroupProtocol.STREAMS) {
			closeLeavingTheStreamsGroup(streams);
		}
		else if (stopper == null && !streams.close(CLOSE_TIMEOUT)) {
			logger.warn("Kafka Streams of {} did not close within {}", this.wiring.identity().instanceId(),
					CLOSE_TIMEOUT);
		}
		if (stopper != null) {
			stopper.run();
		}
	}

	/**
	 * Under the streams protocol the broker moves a member's tasks at once only when its close says it leaves; Kafka
	 * Streams and spring-kafka close staying in the group unless told, and this member's own clients do not speak for
	 * it there, so its tasks would wait {@code group.streams.session.timeout.ms} (45 s). A stopper of the
	 * application's that closes again (spring-kafka's factory bean) finds them closed.
	 */
	// KafkaStreams.CloseOptions: the one close with a leave on every supported Kafka line (4.1 has no other)
	@SuppressWarnings("deprecation")
	private void closeLeavingTheStreamsGroup(KafkaStreams streams) {
		if (!streams.close(new KafkaStreams.CloseOptions().leaveGroup(true).timeout(CLOSE_TIMEOUT))) {
			logger.warn("Kafka Streams of {} did not close within {}", this.wiring.identity().instanceId(),
					CLOSE_TIMEOUT);
		}
	}

	/**
	 * Run the attached start's checks, which open the control topic; stops the checks that ran before.
	 */
	void startChecks() {
		MemberStart start = Objects.requireNonNull(this.attached, "attach(..) first");
		stopChecks();
		this.checks = MemberChecks.start(start, this.controlTopic);
	}

	void stopChecks() {
		MemberChecks running = this.checks;
		if (running != null) {
			this.checks = null;
			running.stop();
		}
	}

	/**
	 * Follow the control topic (on its reader's thread, which must not wait): other members' rejoin announcements,
	 * and a plan that may hand this member's tasks over, acted on now rather than at the next periodic check.
	 */
	private void onControlRecord(ControlRecord record) {
		StartWiring current = this.wiring;
		MemberClientSupplier clients = current.clientsOrNull();
		if (this.context.config().rejoinRequests() && clients != null) {
			this.rejoin.follow(record, current.identity(), clients.rebalanceTrigger());
		}
		MemberChecks running = this.checks;
		if (record instanceof PlanEpoch && running != null) {
			running.checkLeaveNow();
		}
	}

}
