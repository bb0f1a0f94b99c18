package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.IntSupplier;

import io.github.incrementalrebalance.identity.MemberIdentity;
import io.github.incrementalrebalance.planner.HandOverReason;
import io.github.incrementalrebalance.planner.MemberPlan;
import io.github.incrementalrebalance.control.ControlState;
import io.github.incrementalrebalance.control.ControlWriter;
import io.github.incrementalrebalance.control.LeaveRecord;
import io.github.incrementalrebalance.control.PlanRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leave state machine of one member: STABLE -> LEAVING -> DRAINED, FORCED or LEFT_WITHOUT_LEARNERS -> CLOSED, and
 * LEAVING -> STABLE on cancel. How a leave ended is its {@link DrainOutcome}; only a hand-over to ready learners is
 * DRAINED.
 * <p>
 * Leaving writes {@code leave/<id>/<incarnation>} with a new leave id and asks for a rebalance; once closed, the member
 * writes how the leave ended into that record, for the operator's {@code list}. The leave counts as acknowledged only
 * once a plan for this member echoes that id; until then the member asks again, backing off. Every bound it keeps (its
 * drain timeout, how long it waits for an acknowledgement, the stall bound) runs on its own elapsed clock from
 * when it read the request: the requester may be another machine, and the wall clock may step. Only an explicit cancel
 * record of this leave cancels it; a leave record that disappears (the leader's housekeeping) is written again.
 */
final class Drain {

	private static final Logger logger = LoggerFactory.getLogger(Drain.class);

	private final MemberIdentity identity;

	private final ControlState reader;

	private final ControlWriter writer;

	private final RebalanceTrigger trigger;

	private final LeaveOnClose leaveOnClose;

	private final GroupExit exit;

	private final IntSupplier statefulTasks;

	private final List<Consumer<MemberState>> stateListeners = new CopyOnWriteArrayList<>();

	private final LeaveBounds bounds;

	private final MemberClocks clocks;

	private volatile MemberState state = MemberState.STABLE;

	/** On the elapsed clock. */
	private volatile Optional<Instant> deadline = Optional.empty();

	private volatile Optional<DrainOutcome> outcome = Optional.empty();

	private LeaveRecord leave;

	private volatile LeaveAcknowledgement acknowledgement;

	private DrainStallWatch stallWatch;

	/** Why the current drain gets nowhere, while it does. */
	private volatile Optional<String> stalled = Optional.empty();

	private final OthersLastSeen othersSeen;

	/** Why a hand-over with no other member is held, while it is. */
	private volatile Optional<String> held = Optional.empty();

	private boolean recordSeen;

	private boolean rewriting;

	private String stayedFrom;

	/** Under the streams protocol: what the hand-over waits for instead of a plan. */
	private final Optional<StandbyCopies> standbys;

	/**
	 * @param statefulTasks how many stateful tasks the member runs, for the outcome of a leave without learners
	 * @param standbys under the streams protocol, the copies of the member's tasks on the others, which the hand-over
	 * waits for; empty under the classic protocol, where it waits for the plan
	 */
	Drain(MemberIdentity identity, ControlState reader, ControlWriter writer, RebalanceTrigger trigger,
			LeaveOnClose leaveOnClose, GroupExit exit, IntSupplier statefulTasks, LeaveBounds bounds,
			MemberClocks clocks, Optional<StandbyCopies> standbys) {
		this.identity = identity;
		this.reader = reader;
		this.writer = writer;
		this.trigger = trigger;
		this.leaveOnClose = leaveOnClose;
		this.exit = exit;
		this.statefulTasks = statefulTasks;
		this.bounds = bounds;
		this.clocks = clocks;
		this.othersSeen = new OthersLastSeen(identity.instanceId(), bounds.othersReturn());
		this.standbys = standbys;
	}

	MemberState state() {
		return this.state;
	}

	Optional<DrainOutcome> outcome() {
		return this.outcome;
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

	/**
	 * When the member leaves even if its learners are not ready: kept on its elapsed clock, shown on the wall clock.
	 * @return the deadline as the wall clock reads it now, if the leave has one
	 */
	Optional<Instant> deadline() {
		return this.deadline.map(this.clocks::onWall);
	}

	/**
	 * Start leaving: write the request and wait until the cluster has it (no lock is held meanwhile); a repeat changes
	 * nothing.
	 * @param timeout this leave's drain timeout, if any
	 * @param source who asked
	 * @param learnersPossible false when this member cannot be drained through learners (it runs Kafka's own
	 * assignor): it then leaves at once, and says so
	 * @return whether this call started the leave
	 * @throws io.github.incrementalrebalance.control.ControlWriteException when the request was not written, or whether
	 * it was is unknown
	 */
	boolean leave(Optional<Duration> timeout, String source, boolean learnersPossible) {
		LeaveRecord request;
		synchronized (this) {
			if (this.state != MemberState.STABLE) {
				return false;
			}
			// the control record keeps milliseconds
			request = LeaveRecord.request(this.identity.instanceId(), this.identity.incarnation(),
					this.clocks.wall().instant().truncatedTo(ChronoUnit.MILLIS), timeout, source);
		}
		this.writer.writeAndWait(request, "write the leave request");
		synchronized (this) {
			boolean readBackFirst = this.state == MemberState.LEAVING && this.leave.leaveId().equals(request.leaveId());
			if (this.state != MemberState.STABLE && !readBackFirst) {
				return false;
			}
			if (!readBackFirst) {
				startLeaving(request);
			}
			if (!learnersPossible) {
				finish(DrainOutcome.of(DrainOutcome.Reason.OWN_MODE_UPGRADING, this.statefulTasks.getAsInt()));
			}
			return true;
		}
	}

	private void startLeaving(LeaveRecord request) {
		Instant now = this.clocks.elapsed().instant();
		this.leave = request;
		this.deadline = request.timeout().map(now::plus);
		this.outcome = Optional.empty();
		this.recordSeen = false;
		this.acknowledgement = new LeaveAcknowledgement(request.leaveId(), this.identity.instanceId(), now,
				this.trigger.observedGeneration(), this.bounds);
		this.stallWatch = new DrainStallWatch(this.bounds.stall(), now);
		this.stalled = Optional.empty();
		this.held = Optional.empty();
		moveTo(MemberState.LEAVING);
		logger.info("{} is leaving (leave {}, timeout {}), asked by {}", this.identity.instanceId(), request.leaveId(),
				request.timeout().map(Duration::toString).orElse("none"), request.source());
		if (this.standbys.isPresent()) {
			// the broker assigns: there is no round to ask for and no plan to wait for, only the standbys
			return;
		}
		this.trigger.request(RebalanceCause.LEAVE, "incremental-rebalance: " + this.identity.instanceId() + " is leaving");
	}

	/**
	 * The application shuts down while this member leaves: the leave goes on, but ends within {@code bound} from now at
	 * the latest, as a leave whose deadline passed; a nearer deadline of its own stays.
	 * @param bound how long the shutdown leaves it
	 * @return whether a leave was under way
	 */
	synchronized boolean endWithin(Duration bound) {
		if (this.state != MemberState.LEAVING) {
			return false;
		}
		Instant until = this.clocks.elapsed().instant().plus(bound);
		if (this.deadline.isEmpty() || this.deadline.get().isAfter(until)) {
			this.deadline = Optional.of(until);
			logger.info("{} shuts down while it leaves (leave {}): its drain goes on for at most {}",
					this.identity.instanceId(), this.leave.leaveId(), bound);
		}
		return true;
	}

	/**
	 * Cancel a leave that has not finished (tasks already moved stay moved): write the cancel record and wait until
	 * the cluster has it, so that the leader cannot go on draining a member that reports STABLE.
	 * @return whether a leave was cancelled
	 * @throws io.github.incrementalrebalance.control.ControlWriteException when the cancel was not written (the member
	 * stays LEAVING), or whether it was is unknown
	 */
	boolean cancel() {
		LeaveRecord cancel;
		synchronized (this) {
			if (this.state != MemberState.LEAVING) {
				return false;
			}
			cancel = this.leave.cancel("member");
		}
		this.writer.writeAndWait(cancel, "write the cancel of the leave");
		synchronized (this) {
			// the leave may have ended while the cancel was written: then nothing was cancelled
			if (this.state == MemberState.LEAVING && this.leave.leaveId().equals(cancel.leaveId())) {
				stay();
				return true;
			}
			// read back first: the reader's check already followed the cancel record
			boolean stayed = this.state == MemberState.STABLE && cancel.leaveId().equals(this.stayedFrom);
			LeaveRecord end = this.exit.endWritten();
			if (!stayed && end != null && end.leaveId().equals(cancel.leaveId())) {
				// the end went out just before the cancel, which replaced it: written again, after it
				this.writer.write(end);
			}
			return stayed;
		}
	}

	private void stay() {
		this.stayedFrom = this.leave.leaveId();
		this.deadline = Optional.empty();
		moveTo(MemberState.STABLE);
		logger.info("{} cancelled its leave {}", this.identity.instanceId(), this.stayedFrom);
		this.trigger.request(RebalanceCause.CANCEL, "incremental-rebalance: " + this.identity.instanceId() + " stays");
	}

	/**
	 * Follow the control topic: a leave record for this start of the member written elsewhere (the command line)
	 * starts the leave, its cancel record cancels it. Then move the leave on.
	 */
	void check() {
		// under the streams protocol the copies are read from the cluster: without the lock, which an operator's
		// cancel takes, so that a slow broker holds no operator's thread
		Optional<Map<String, Optional<Long>>> copiesNotReady = (this.state == MemberState.LEAVING)
				? this.standbys.map(StandbyCopies::notReady) : Optional.empty();
		checkWith(copiesNotReady);
	}

	private synchronized void checkWith(Optional<Map<String, Optional<Long>>> copiesNotReady) {
		Instant now = this.clocks.elapsed().instant();
		this.othersSeen.observe(now, this.reader.plans());
		Optional<LeaveRecord> record = this.reader.leaveRecord(this.identity.instanceId(), this.identity.incarnation());
		if (this.state == MemberState.STABLE) {
			record.filter((leave) -> leave.pending() && !leave.leaveId().equals(this.stayedFrom))
				.ifPresent((leave) -> {
					startLeaving(leave);
					this.recordSeen = true;
				});
			return;
		}
		if (this.state != MemberState.LEAVING) {
			return;
		}
		if (followRecord(record)) {
			return;
		}
		if (this.standbys.isPresent()) {
			// read before this leave began (it began on this check): the next check reads the copies
			copiesNotReady.ifPresent((notReady) -> checkStandbys(now, notReady));
			return;
		}
		Optional<MemberPlan> plan = this.reader.plan(this.identity.instanceId(), this.identity.incarnation())
			.map(PlanRecord::plan)
			.filter((own) -> own.actsOn(this.leave.leaveId()));
		if (plan.isEmpty()) {
			hold(Optional.empty());
			this.reader.planEpoch()
				.ifPresent((epoch) -> this.acknowledgement.lost(now, this.trigger, epoch.generation()));
		}
		else {
			this.acknowledgement.confirm();
			Optional<HandOverReason> handOver = plan.get().handOver();
			hold(handOver.filter(HandOverReason.NO_OTHER_MEMBER::equals).flatMap((alone) -> this.othersSeen.hold(now)));
			if (handOver.isPresent() && this.held.isEmpty()) {
				int notReady = learnersNotReady(plan.get());
				DrainOutcome.Reason reason = outcomeOf(handOver.get(), notReady);
				// without learners every stateful task moves cold; otherwise those whose learner is not ready yet
				finish(DrainOutcome.of(reason, (reason.kind() == DrainOutcome.Kind.LEFT_WITHOUT_LEARNERS)
						? this.statefulTasks.getAsInt() : notReady));
				return;
			}
			if (handOver.isEmpty()) {
				followProgress(now, plan.get());
			}
		}
		if (this.deadline.isPresent() && !now.isBefore(this.deadline.get())) {
			finish(DrainOutcome.of(DrainOutcome.Reason.DEADLINE_PASSED,
					plan.map(this::learnersNotReady).orElseGet(this.statefulTasks::getAsInt)));
			return;
		}
		this.acknowledgement.check(now, this.trigger, this.reader)
			.ifPresent((reason) -> finish(DrainOutcome.of(reason, this.statefulTasks.getAsInt())));
	}

	/**
	 * Under the streams protocol: hand over once every other instance holds a ready copy of every stateful task of
	 * this member, so that each is warm wherever the broker moves it.
	 */
	private void checkStandbys(Instant now, Map<String, Optional<Long>> notReady) {
		if (notReady.isEmpty()) {
			finish(DrainOutcome.of(DrainOutcome.Reason.STANDBYS_READY, 0));
			return;
		}
		observeStall(now, notReady);
		if (this.deadline.isPresent() && !now.isBefore(this.deadline.get())) {
			finish(DrainOutcome.of(DrainOutcome.Reason.DEADLINE_PASSED, notReady.size()));
		}
	}

	/**
	 * The tasks that move cold when the member leaves now: those still being learned whose learner is not ready as its
	 * member last reported; a ready learner takes its task over warm, whether or not the hand-over waited for it.
	 */
	private int learnersNotReady(MemberPlan plan) {
		return DrainStallWatch.notReady(plan.beingLearned(), this.reader.progress()).size();
	}

	private void hold(Optional<String> reason) {
		if (reason.isPresent() && this.held.isEmpty()) {
			logger.warn("{} holds its hand-over (leave {}): {}", this.identity.instanceId(), this.leave.leaveId(),
					reason.get());
		}
		else if (reason.isEmpty() && this.held.isPresent()) {
			logger.info("{} holds its hand-over no longer (leave {})", this.identity.instanceId(), this.leave.leaveId());
		}
		this.held = reason;
	}

	/**
	 * Say when the drain gets nowhere, and when it moves again.
	 */
	private void followProgress(Instant now, MemberPlan plan) {
		observeStall(now, DrainStallWatch.notReady(plan.beingLearned(), this.reader.progress()));
	}

	private void observeStall(Instant now, Map<String, Optional<Long>> notReady) {
		Optional<String> stall = this.stallWatch.observe(now, notReady);
		if (stall.isPresent() && this.stalled.isEmpty()) {
			logger.warn("The drain of {} (leave {}) is stalled: {}", this.identity.instanceId(),
					this.leave.leaveId(), stall.get());
		}
		else if (stall.isEmpty() && this.stalled.isPresent()) {
			logger.info("The drain of {} (leave {}) moves again", this.identity.instanceId(), this.leave.leaveId());
		}
		this.stalled = stall;
	}

	/**
	 * Why the current drain gets nowhere, while it does: its learners that are not ready have not come closer for the
	 * stall bound. It goes on.
	 * @return the reason, empty while it progresses or there is no drain
	 */
	Optional<String> stalled() {
		return (this.state == MemberState.LEAVING) ? this.stalled : Optional.empty();
	}

	/**
	 * Follow this start's leave record while leaving.
	 * @return true when the leave is over (cancelled)
	 */
	private boolean followRecord(Optional<LeaveRecord> record) {
		if (record.isEmpty()) {
			if (this.recordSeen && !this.rewriting) {
				logger.warn("The leave record of {} disappeared from the control topic while it is leaving (removed by a "
						+ "leader's housekeeping, or a tombstone written by hand); writing it again: only a cancel "
						+ "ends a leave", this.identity.instanceId());
				this.rewriting = true;
				LeaveRecord again = this.leave;
				this.writer.write(again).whenComplete((written, failure) -> rewritten(failure));
			}
			return false;
		}
		LeaveRecord read = record.get();
		if (!read.leaveId().equals(this.leave.leaveId())) {
			if (read.pending()) {
				logger.info("{} was asked to leave again (leave {}): it follows the new request",
						this.identity.instanceId(), read.leaveId());
				startLeaving(read);
				this.recordSeen = true;
			}
			return false;
		}
		this.recordSeen = true;
		if (read.cancelled()) {
			stay();
			return true;
		}
		return false;
	}

	private synchronized void rewritten(Throwable failure) {
		this.rewriting = false;
		if (failure != null) {
			logger.warn("Could not write the leave record of {} again; retrying at the next check",
					this.identity.instanceId(), failure);
		}
	}

	/**
	 * Why the current leave waits for the group: longer than its acknowledgement bound for an answer, or for members
	 * that may be rejoining to hand over to, while it does.
	 * @return the reason, empty while the leave is answered in time or there is none
	 */
	Optional<String> waiting() {
		LeaveAcknowledgement current = this.acknowledgement;
		if (this.state != MemberState.LEAVING || current == null || this.standbys.isPresent()) {
			return Optional.empty();
		}
		return this.held.or(current::waiting);
	}

	private static DrainOutcome.Reason outcomeOf(HandOverReason handOver, int learnersNotReady) {
		return switch (handOver) {
			case LEARNERS_READY -> DrainOutcome.Reason.LEARNERS_READY;
			case NO_OTHER_MEMBER -> DrainOutcome.Reason.NO_OTHER_MEMBER;
			case LEARNERS_UNAVAILABLE -> DrainOutcome.Reason.MIXED_MODES;
			case NOT_KNOWN -> (learnersNotReady == 0) ? DrainOutcome.Reason.LEARNERS_READY
					: DrainOutcome.Reason.HANDED_OVER_BY_A_NEWER_LEADER;
		};
	}

	private void finish(DrainOutcome how) {
		// first: a stream thread that polls from now on must not join another round, which would hold its tasks
		this.leaveOnClose.markDrained();
		this.outcome = Optional.of(how);
		this.deadline = Optional.empty();
		if (how.kind() == DrainOutcome.Kind.DRAINED) {
			logger.info("{} hands over, leaving the group: {}", this.identity.instanceId(), how.describe());
		}
		else {
			logger.warn("{} leaves the group, {}", this.identity.instanceId(), how.describe());
		}
		moveTo(how.state());
		// the others join the round this member's leave begins now, while its stream threads still commit and close
		this.trigger.joiningByItself("incremental-rebalance: " + this.identity.instanceId() + " leaves the group");
		// written once out of the group: until then the leader must still see a member that leaves
		this.exit.leave(this.leave.endedAs(new LeaveRecord.Ended(how.kind().word(), how.reason().word(),
				how.tasksMovedCold())), () -> {
					moveTo(MemberState.CLOSED);
					logger.info("{} is closed ({})", this.identity.instanceId(), how.kind().word());
				});
	}

}
