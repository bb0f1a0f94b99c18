package io.github.incrementalrebalance.control;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

import io.github.incrementalrebalance.planner.LeaveRequest;
import io.github.incrementalrebalance.planner.StartId;

/**
 * {@code leave/<instance-id>/<incarnation>}: one start of an instance was asked to leave, or that leave was cancelled.
 * A cancel is a record of its own ({@link #cancelled()}), never a tombstone: the leader removes leave records of
 * members long gone, and a member that was briefly out of the group must not read that as a cancel. Keyed by start, so
 * that a late write about an earlier start (its {@code ended} record, the housekeeping tombstone of a start long
 * gone) can never erase the leave of the start that runs now.
 * <p>
 * Times in it are the requester's clock (the command line may run on another machine): they are shown, never
 * compared with another clock, except the deadline by a leader (see {@link LeaveRequest}). The member measures its
 * own bound as {@link #timeout()} from when it read the request.
 *
 * @param instanceId the leaving instance
 * @param incarnation the start of the instance the request is for; for any other start it is stale
 * @param leaveId this request's identity, echoed by the plan of the leader that acts on it
 * @param requestedAt when it was asked
 * @param deadline when it leaves even if its learners are not ready; empty to wait however long
 * @param source who asked (endpoint, command line, shutdown)
 * @param cancelled whether the leave {@code leaveId} was cancelled
 * @param ended how the leave ended, written by the member as it closes; the record then stays, for the operator's
 * {@code list}, until the leader's housekeeping removes it
 */
public record LeaveRecord(String instanceId, String incarnation, String leaveId, Instant requestedAt,
		Optional<Instant> deadline, String source, boolean cancelled, Optional<Ended> ended) implements ControlRecord {

	static final String KEY_PREFIX = "leave/";

	public LeaveRecord {
		Objects.requireNonNull(instanceId, "instanceId");
		Objects.requireNonNull(incarnation, "incarnation");
		Objects.requireNonNull(leaveId, "leaveId");
		Objects.requireNonNull(requestedAt, "requestedAt");
		Objects.requireNonNull(deadline, "deadline");
		Objects.requireNonNull(source, "source");
		Objects.requireNonNull(ended, "ended");
	}

	/**
	 * A request that is not cancelled.
	 * @param instanceId the leaving instance
	 * @param incarnation the start of the instance the request is for
	 * @param requestedAt when it was asked, on the requester's clock
	 * @param timeout how long the member may wait for its learners; empty to wait however long
	 * @param source who asked
	 * @return the record, with a new identity
	 */
	public static LeaveRecord request(String instanceId, String incarnation, Instant requestedAt,
			Optional<Duration> timeout, String source) {
		return new LeaveRecord(instanceId, incarnation, newLeaveId(), requestedAt, timeout.map(requestedAt::plus),
				source, false, Optional.empty());
	}

	/**
	 * The cancel of this request.
	 * @param source who cancels
	 * @return the record that cancels it
	 */
	public LeaveRecord cancel(String source) {
		return new LeaveRecord(this.instanceId, this.incarnation, this.leaveId, this.requestedAt, this.deadline,
				source, true, Optional.empty());
	}

	/**
	 * This request, ended.
	 * @param how how it ended
	 * @return the record the member writes as it closes
	 */
	public LeaveRecord endedAs(Ended how) {
		return new LeaveRecord(this.instanceId, this.incarnation, this.leaveId, this.requestedAt, this.deadline,
				this.source, false, Optional.of(how));
	}

	/**
	 * Whether the leave is still to be acted on: neither cancelled nor ended.
	 * @return true while the member is asked to leave
	 */
	public boolean pending() {
		return !this.cancelled && this.ended.isEmpty();
	}

	/**
	 * A new request identity.
	 * @return a random id, unique among the leaves of a group in practice
	 */
	public static String newLeaveId() {
		return Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
	}

	/**
	 * How long the requester gave the member, from the request's own two times (one clock).
	 * @return the timeout, empty to wait however long
	 */
	public Optional<Duration> timeout() {
		return this.deadline.map((until) -> Duration.between(this.requestedAt, until))
			.map((timeout) -> timeout.isNegative() ? Duration.ZERO : timeout);
	}

	public static String keyOf(String instanceId, String incarnation) {
		return KEY_PREFIX + new StartId(instanceId, incarnation);
	}

	@Override
	public String key() {
		return keyOf(this.instanceId, this.incarnation);
	}

	/**
	 * How a leave ended, in the words of the member's drain outcome.
	 *
	 * @param outcome {@code drained}, {@code forced} or {@code left-without-learners}, as the member recorded it, or
	 * {@link #KILLED} as its group's leader did
	 * @param reason why, e.g. {@code learners-ready} or {@code deadline-passed}
	 * @param tasksMovedCold stateful tasks that moved without a ready learner
	 */
	public record Ended(String outcome, String reason, int tasksMovedCold) {

		/**
		 * The outcome of a leave whose member left the group without recording its end (killed at the end of a grace
		 * period, its process died), which the group's leader recorded for it.
		 */
		public static final String KILLED = "killed";

		/** The reason of a {@link #KILLED} end. */
		public static final String NO_END_RECORDED = "no-end-recorded";

		public Ended {
			Objects.requireNonNull(outcome, "outcome");
			Objects.requireNonNull(reason, "reason");
		}

		@Override
		public String toString() {
			return this.outcome + " (" + this.reason + ")"
					+ ((this.tasksMovedCold > 0) ? ", " + this.tasksMovedCold + " task(s) moved cold" : "");
		}

	}

	/**
	 * The request as the planner reads it.
	 * @return the leave request
	 */
	public LeaveRequest toLeaveRequest() {
		return new LeaveRequest(this.instanceId, this.incarnation, this.leaveId, this.deadline);
	}

}
