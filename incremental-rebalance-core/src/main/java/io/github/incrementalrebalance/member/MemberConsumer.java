package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CloseOptions.GroupMembershipOperation;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The main consumer of one stream thread: takes rebalance requests inside its own {@code poll()}, joins every round
 * its instance begins ({@link InstanceRound}), and closes with an explicit group membership operation.
 */
final class MemberConsumer extends ForwardingConsumer<byte[], byte[]> {

	private static final Logger logger = LoggerFactory.getLogger(MemberConsumer.class);

	/**
	 * The consumer whose {@code poll()} runs on the calling thread: the assignor and the rebalance listener, which
	 * the consumer calls inside its poll, ask it how often it joined the group.
	 */
	private static final ThreadLocal<MemberConsumer> POLLING = new ThreadLocal<>();

	/** The consumer's count of the JoinGroup rounds it joined, in Kafka's documented coordinator metrics. */
	private static final String JOINS_METRIC = "join-total";

	private static final String COORDINATOR_METRICS = "consumer-coordinator-metrics";

	private final RebalanceTrigger trigger;

	private final LeaveOnClose leaveOnClose;

	private final boolean staticMember;

	/** For a static member, whether the group still holds it; null for a dynamic one. */
	private final BooleanSupplier staticMemberKnown;

	private final GroupMembership membership;

	/** Set before the consumer closes: partitions revoked then are not handed over in a next round. */
	private volatile boolean closing;

	/**
	 * How long after its first poll a new consumer's join is announced: by then its JoinGroup reached the
	 * coordinator, which has put the group into a rebalance. Announced sooner, the others' joins could complete a
	 * round without it, and its own would start another.
	 */
	static final Duration FIRST_JOIN_ANNOUNCED_AFTER = Duration.ofMillis(300);

	/** When this consumer first polled, 0 before; only touched in poll. */
	private long firstPoll;

	/** Whether this consumer's first join was announced, or needs no announcement; only touched in poll. */
	private boolean firstJoinSeen;

	/** The newest generation this consumer completed; only touched on its thread. */
	private int completedGeneration = -1;

	/** The sequence of the last {@link InstanceRound} this consumer joined or let pass; only touched on its thread. */
	private long roundJoined;

	/**
	 * @param staticMemberKnown for a static member, whether the group still holds it; null for a dynamic member
	 */
	MemberConsumer(Consumer<byte[], byte[]> delegate, RebalanceTrigger trigger, LeaveOnClose leaveOnClose,
			BooleanSupplier staticMemberKnown, GroupMembership membership) {
		super(delegate);
		this.trigger = trigger;
		this.leaveOnClose = leaveOnClose;
		this.staticMember = staticMemberKnown != null;
		this.staticMemberKnown = staticMemberKnown;
		this.membership = membership;
		membership.consumerOpened();
	}

	@Override
	public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
		// a drained instance leaves the group: a round its consumers joined now would hold their tasks for another
		RebalanceTrigger.Request request = this.leaveOnClose.isDrained() ? null : this.trigger.take();
		if (request != null) {
			logger.info("Enforcing a rebalance: {}", request.reason());
			delegate().enforceRebalance(request.reason());
			this.roundJoined = this.trigger.enforced(request).sequence();
		}
		else {
			joinInstanceRound();
		}
		ConsumerRecords<byte[], byte[]> records;
		POLLING.set(this);
		try {
			records = delegate().poll(timeout);
		}
		finally {
			POLLING.remove();
		}
		if (!this.firstJoinSeen) {
			announceFirstJoin();
		}
		return records;
	}

	/**
	 * How often the consumer polling on the calling thread joined its group: called by the assignor and the
	 * rebalance listener of a stream thread, inside its consumer's poll.
	 * @return the count, empty outside a poll or when the consumer does not report it
	 */
	static OptionalLong joinsOfPollingThread() {
		MemberConsumer polling = POLLING.get();
		return (polling != null) ? polling.joins() : OptionalLong.empty();
	}

	OptionalLong joins() {
		for (Map.Entry<MetricName, ? extends Metric> metric : delegate().metrics().entrySet()) {
			MetricName name = metric.getKey();
			if (JOINS_METRIC.equals(name.name()) && COORDINATOR_METRICS.equals(name.group())
					&& metric.getValue().metricValue() instanceof Number count) {
				return OptionalLong.of(count.longValue());
			}
		}
		return OptionalLong.empty();
	}

	/**
	 * Join the round another consumer of this instance began, once this one completed the generation it began after.
	 */
	private void joinInstanceRound() {
		if (this.closing || this.leaveOnClose.isDrained()) {
			return;
		}
		InstanceRound round = this.trigger.round();
		switch (round.stepFor(this.roundJoined, this.completedGeneration)) {
			case JOIN -> {
				this.roundJoined = round.sequence();
				logger.debug("Joining the instance's round: {}", round.reason());
				delegate().enforceRebalance(round.reason());
			}
			case DONE -> this.roundJoined = round.sequence();
			case WAIT -> {
			}
		}
	}

	/**
	 * A new member's JoinGroup puts the group into a rebalance, which the other members join at their next heartbeat
	 * unless told: the first consumers of an instance, or a stream thread added to a running one. A static member the
	 * group still holds restarts in its place without a round, however long its join takes, and is not announced.
	 */
	private void announceFirstJoin() {
		long now = System.nanoTime();
		if (this.firstPoll == 0) {
			this.firstPoll = now | 1;
			return;
		}
		if (now - this.firstPoll < FIRST_JOIN_ANNOUNCED_AFTER.toNanos()) {
			return;
		}
		this.firstJoinSeen = true;
		if (this.completedGeneration < 0 && !(this.staticMember && this.staticMemberKnown.getAsBoolean())) {
			this.roundJoined = this.trigger.joiningByItself("incremental-rebalance: a new member joins the group")
				.sequence();
		}
	}

	/**
	 * Kafka Streams rejoins by itself when a follow-up rebalance it scheduled is due (the leader's assignor asked for
	 * one, to place the next learner of a hand-over at once, or to probe) or when its assignment asks for one: a round
	 * of the whole group, which the others would join at their next heartbeat; announced like the round after a
	 * revoke. This instance's own requests are enforced in {@link #poll} and announced there.
	 */
	@Override
	public void enforceRebalance(String reason) {
		delegate().enforceRebalance(reason);
		if (!this.closing) {
			this.roundJoined = this.trigger.joiningByItself("incremental-rebalance: Kafka Streams rejoins (" + reason
					+ ")").sequence();
		}
	}

	@Override
	public void enforceRebalance() {
		enforceRebalance("no reason given");
	}

	@Override
	public void subscribe(Collection<String> topics, ConsumerRebalanceListener callback) {
		delegate().subscribe(topics, new GenerationReporter(callback));
	}

	@Override
	public void subscribe(Pattern pattern, ConsumerRebalanceListener callback) {
		delegate().subscribe(pattern, new GenerationReporter(callback));
	}

	/**
	 * Kafka Streams' rebalance listener, told first of every rebalance this consumer completes: the consumer calls
	 * {@code onPartitionsAssigned} after each one, on its own thread, once its group metadata has the new generation.
	 */
	private final class GenerationReporter implements ConsumerRebalanceListener {

		private final ConsumerRebalanceListener streamsListener;

		/** Partitions were revoked in the rebalance completing now; only touched on the consumer's thread. */
		private int revokedInThisRound;

		GenerationReporter(ConsumerRebalanceListener streamsListener) {
			this.streamsListener = streamsListener;
		}

		@Override
		public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
			int revoked = this.revokedInThisRound;
			this.revokedInThisRound = 0;
			try {
				int generation = delegate().groupMetadata().generationId();
				MemberConsumer.this.completedGeneration = generation;
				MemberConsumer.this.trigger.generationCompleted(generation);
				if (revoked > 0) {
					String reason = "incremental-rebalance: " + revoked + " partition(s) revoked in generation "
							+ generation + " go to their new owners";
					MemberConsumer.this.roundJoined = MemberConsumer.this.trigger.joiningByItself(reason).sequence();
				}
				else {
					// a round another consumer began while this one still completed its generation: rejoined now,
					// within this poll, as the cooperative consumer does after a revoke
					joinInstanceRound();
				}
			}
			catch (RuntimeException ex) {
				logger.warn("Could not report the generation completed", ex);
			}
			this.streamsListener.onPartitionsAssigned(partitions);
		}

		/**
		 * Outside a close, the cooperative consumer calls this while completing a rebalance that took partitions away,
		 * just before {@link #onPartitionsAssigned}, and then rejoins at once.
		 */
		@Override
		public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
			if (!MemberConsumer.this.closing) {
				this.revokedInThisRound += partitions.size();
			}
			this.streamsListener.onPartitionsRevoked(partitions);
		}

		@Override
		public void onPartitionsLost(Collection<TopicPartition> partitions) {
			this.streamsListener.onPartitionsLost(partitions);
		}

	}

	@Override
	public void close() {
		GroupMembershipOperation operation = closing(GroupMembershipOperation.DEFAULT);
		delegate().close(CloseOptions.groupMembershipOperation(operation));
		this.membership.consumerClosed(operation);
	}

	@Override
	public void close(Duration timeout) {
		GroupMembershipOperation operation = closing(GroupMembershipOperation.DEFAULT);
		delegate().close(CloseOptions.timeout(timeout).withGroupMembershipOperation(operation));
		this.membership.consumerClosed(operation);
	}

	@Override
	public void close(CloseOptions options) {
		GroupMembershipOperation operation = closing(options.groupMembershipOperation());
		CloseOptions decided = CloseOptions.groupMembershipOperation(operation);
		options.timeout().ifPresent(decided::withTimeout);
		delegate().close(decided);
		this.membership.consumerClosed(operation);
	}

	/**
	 * Decide how this consumer closes. One that leaves puts the group into a rebalance, which the other members, and
	 * this instance's consumers that are not closing too (a stream thread removed or replaced), would join at their
	 * next heartbeat: announced before the close, which commits and waits for its requests, so that their joins reach
	 * the coordinator with the LeaveGroup rather than after it.
	 */
	private GroupMembershipOperation closing(GroupMembershipOperation requested) {
		this.closing = true;
		GroupMembershipOperation operation = membershipOperation(requested);
		if (operation == GroupMembershipOperation.LEAVE_GROUP) {
			this.trigger.joiningByItself("incremental-rebalance: a member leaves the group");
		}
		return operation;
	}

	private GroupMembershipOperation membershipOperation(GroupMembershipOperation requested) {
		GroupMembershipOperation operation = this.leaveOnClose.operation(this.staticMember, requested);
		logger.debug("Closing main consumer with {} (asked: {})", operation, requested);
		return operation;
	}

}
