package io.github.incrementalrebalance.member;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.github.incrementalrebalance.control.ControlState;
import io.github.incrementalrebalance.control.ControlWriter;
import io.github.incrementalrebalance.control.LeaveRecord;
import io.github.incrementalrebalance.control.PlanEpoch;
import io.github.incrementalrebalance.control.PlanRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leave state machine of one member: STABLE -> LEAVING -> DRAINED (or FORCED at the deadline) -> CLOSED, and
 * LEAVING -> STABLE on cancel. Leaving writes {@code leave/<id>} and asks for a rebalance; until a plan lists the
 * member as leaving (the leader had not read the record yet) it asks again, backing off; if no learner-capable
 * leader ever answers, it leaves at once. When the plan says hand-over it leaves the group, and one rebalance moves
 * every task to its learner.
 */
final class Drain {

	private static final Logger logger = LoggerFactory.getLogger(Drain.class);

	private static final Duration FIRST_RETRY = Duration.ofSeconds(1);

	private static final Duration LAST_RETRY = Duration.ofSeconds(8);

	private static final Duration WRITE_TIMEOUT = Duration.ofSeconds(10);

	private static final Duration PLAN_GRACE = Duration.ofSeconds(2);

	private final MemberIdentity identity;

	private final ControlState reader;

	private final ControlWriter writer;

	private final RebalanceTrigger trigger;

	private final LeaveOnClose leaveOnClose;

	private final Runnable closeStreams;

	private final List<Consumer<MemberState>> stateListeners = new CopyOnWriteArrayList<>();

	private final Duration unansweredLimit;

	private final Clock clock;

	private volatile MemberState state = MemberState.STABLE;

	private volatile Optional<Instant> deadline = Optional.empty();

	private Instant requestedAt;

	private Instant nextRetry;

	private Duration retry = FIRST_RETRY;

	private boolean confirmed;

	private boolean recordSeen;

	private Instant cancelledRequest = Instant.MIN;

	private int generationAtRequest;

	private long epochAtRequest;

	private Instant unansweredSince;

	Drain(MemberIdentity identity, ControlState reader, ControlWriter writer, RebalanceTrigger trigger,
			LeaveOnClose leaveOnClose, Runnable closeStreams, Duration unansweredLimit, Clock clock) {
		this.identity = identity;
		this.reader = reader;
		this.writer = writer;
		this.trigger = trigger;
		this.leaveOnClose = leaveOnClose;
		this.closeStreams = closeStreams;
		this.unansweredLimit = unansweredLimit;
		this.clock = clock;
	}

	MemberState state() {
		return this.state;
	}

	void addStateListener(Consumer<MemberState> listener) {
		this.stateListeners.add(listener);
	}

	private void moveTo(MemberState next) {
		this.state = next;
		for (Consumer<MemberState> listener : this.stateListeners) {
			try {
				listener.accept(next);
			}
			catch (RuntimeException ex) {
				logger.warn("Member state listener failed on {}", next, ex);
			}
		}
	}

	Optional<Instant> deadline() {
		return this.deadline;
	}

	/**
	 * Start leaving; a repeat changes nothing.
	 * @param timeout this leave's scale-down timeout, if any
	 * @param source who asked
	 * @return whether this call started the leave
	 */
	synchronized boolean leave(Optional<Duration> timeout, String source) {
		if (this.state != MemberState.STABLE) {
			return false;
		}
		// the control record keeps milliseconds: compare like with like when the record is read back
		Instant now = this.clock.instant().truncatedTo(ChronoUnit.MILLIS);
		Optional<Instant> until = timeout.map(now::plus);
		try {
			this.writer.write(new LeaveRecord(this.identity.instanceId(), this.identity.incarnation(), now, until,
					source)).get(WRITE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while writing the leave request", ex);
		}
		catch (Exception ex) {
			throw new IllegalStateException("Cannot write the leave request to the control topic: " + ex, ex);
		}
		startLeaving(now, until, source);
		return true;
	}

	private void startLeaving(Instant requested, Optional<Instant> until, String source) {
		Instant now = this.clock.instant();
		this.requestedAt = requested;
		this.deadline = until;
		this.confirmed = false;
		this.recordSeen = false;
		this.retry = FIRST_RETRY;
		this.nextRetry = now.plus(this.retry);
		this.generationAtRequest = this.trigger.observedGeneration();
		this.epochAtRequest = planEpoch();
		this.unansweredSince = null;
		moveTo(MemberState.LEAVING);
		logger.info("{} is leaving (deadline {}), asked by {}", this.identity.instanceId(),
				until.map(Instant::toString).orElse("none"), source);
		this.trigger.request("incremental-rebalance: " + this.identity.instanceId() + " is leaving");
	}

	/**
	 * Cancel a leave that has not finished: tasks already moved stay moved.
	 * @return whether a leave was cancelled
	 */
	synchronized boolean cancel() {
		if (this.state != MemberState.LEAVING) {
			return false;
		}
		this.writer.tombstone(LeaveRecord.keyOf(this.identity.instanceId()));
		stay();
		return true;
	}

	private void stay() {
		this.cancelledRequest = this.requestedAt;
		moveTo(MemberState.STABLE);
		this.deadline = Optional.empty();
		logger.info("{} cancelled its leave", this.identity.instanceId());
		this.trigger.request("incremental-rebalance: " + this.identity.instanceId() + " stays");
	}

	/**
	 * Follow the control topic: a leave record for this start of the member written elsewhere (the command line)
	 * starts the leave; its tombstone cancels it. Then move the leave on.
	 */
	synchronized void check() {
		Optional<LeaveRecord> record = this.reader.leaveRecord(this.identity.instanceId())
			.filter((leave) -> leave.incarnation().equals(this.identity.incarnation()));
		if (this.state == MemberState.STABLE) {
			record.filter((leave) -> !leave.requestedAt().equals(this.cancelledRequest)).ifPresent((leave) -> {
				startLeaving(leave.requestedAt(), leave.deadline(), leave.source());
				this.recordSeen = true;
			});
			return;
		}
		if (this.state != MemberState.LEAVING) {
			return;
		}
		if (record.isPresent()) {
			this.recordSeen = true;
		}
		else if (this.recordSeen) {
			stay();
			return;
		}
		Instant now = this.clock.instant();
		Optional<PlanRecord> plan = this.reader.plan(this.identity.instanceId())
			.filter((own) -> own.incarnation().equals(this.identity.incarnation()) && own.leaving());
		if (plan.isPresent()) {
			this.confirmed = true;
			if (plan.get().handOver().isPresent()) {
				logger.info("{} hands over ({}): leaving the group", this.identity.instanceId(),
						plan.get().handOver().get());
				finish(MemberState.DRAINED);
				return;
			}
		}
		if (this.deadline.isPresent() && !now.isBefore(this.deadline.get())) {
			logger.warn("{} reached its scale-down timeout: leaving with tasks whose learners are not ready",
					this.identity.instanceId());
			finish(MemberState.FORCED);
			return;
		}
		if (!this.confirmed && leaderCannotLearn(now)) {
			logger.warn("{}'s leave was answered by a rebalance without a learner plan: the leader runs Kafka's own "
					+ "assignor (mode upgrading); leaving at once", this.identity.instanceId());
			finish(MemberState.DRAINED);
			return;
		}
		if (!this.confirmed && !now.isBefore(this.nextRetry)) {
			if (!now.isBefore(this.requestedAt.plus(this.unansweredLimit))) {
				logger.warn("No leader answered {}'s leave with a learner plan within {} (the leader may run Kafka's "
						+ "own assignor or mode upgrading): leaving at once", this.identity.instanceId(),
						this.unansweredLimit);
				finish(MemberState.DRAINED);
				return;
			}
			this.trigger.request("incremental-rebalance: " + this.identity.instanceId() + " is leaving (retry)");
			this.retry = (this.retry.multipliedBy(2).compareTo(LAST_RETRY) > 0) ? LAST_RETRY
					: this.retry.multipliedBy(2);
			this.nextRetry = now.plus(this.retry);
		}
	}

	/**
	 * A rebalance completed after the leave request, yet no leader published a plan since: after a short grace for
	 * the plan to be read, the leader is taken to run Kafka's own assignor.
	 */
	private boolean leaderCannotLearn(Instant now) {
		boolean rebalanced = this.trigger.observedGeneration() > this.generationAtRequest;
		if (!rebalanced || planEpoch() != this.epochAtRequest) {
			this.unansweredSince = null;
			return false;
		}
		if (this.unansweredSince == null) {
			this.unansweredSince = now;
		}
		return !now.isBefore(this.unansweredSince.plus(PLAN_GRACE));
	}

	private long planEpoch() {
		return this.reader.planEpoch().map(PlanEpoch::epoch).orElse(-1L);
	}

	private void finish(MemberState how) {
		moveTo(how);
		this.leaveOnClose.markDrained();
		Thread closer = new Thread(() -> {
			this.closeStreams.run();
			this.writer.tombstone(LeaveRecord.keyOf(this.identity.instanceId()));
			moveTo(MemberState.CLOSED);
			logger.info("{} is closed ({} before)", this.identity.instanceId(), how);
		}, "incremental-rebalance-close-" + this.identity.instanceId());
		closer.start();
	}

}
