package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import io.github.incrementalrebalance.control.ControlTopicReader;
import io.github.incrementalrebalance.control.ControlWriteException;
import io.github.incrementalrebalance.control.LeaveAsk;
import io.github.incrementalrebalance.control.LeaveCancel;
import io.github.incrementalrebalance.control.LeaveRecord;
import io.github.incrementalrebalance.planner.RebalancingMode;
import org.apache.kafka.streams.KafkaStreams;

/**
 * Where a leave is asked for and cancelled, for this member or another of its group: the checks a leave must pass and
 * the refusals that say why it cannot start. Called by the operator's threads (an endpoint, the command line's
 * records, a shutdown hook), never by a stream thread: a request waits until the cluster has it.
 */
final class LeaveGate {

	private final MemberContext context;

	private final Supplier<Optional<String>> controlTopicProblem;

	/**
	 * @param context what every start shares
	 * @param controlTopicProblem why the control topic cannot be used right now, if it cannot
	 */
	LeaveGate(MemberContext context, Supplier<Optional<String>> controlTopicProblem) {
		this.context = context;
		this.controlTopicProblem = controlTopicProblem;
	}

	/**
	 * Ask a start of this member to leave.
	 * @param start the start, null before Kafka Streams were attached
	 * @param instanceId this member's instance id
	 * @param timeout this leave's drain timeout; empty for {@code incremental.rebalance.drain.timeout.ms}
	 * @param source who asks
	 * @param force leave even when the last plan shows no other member that would stay
	 * @return whether this call started the leave (false for a repeat)
	 * @throws LeaveRefusedException when the leave cannot start, with the reason
	 * @throws LeaveOutcomeUnknownException when whether its request was written is unknown
	 */
	boolean leave(MemberStart start, String instanceId, Optional<Duration> timeout, String source, boolean force) {
		if (start == null) {
			throw new LeaveRefusedException(LeaveRefusedException.Reason.NOT_RUNNING,
					"Kafka Streams of " + instanceId + " has not started", null);
		}
		Drain drain = start.drain();
		if (drain.state() != MemberState.STABLE) {
			return false;
		}
		KafkaStreams.State streamsState = start.streams().state();
		if (streamsState != KafkaStreams.State.RUNNING && streamsState != KafkaStreams.State.REBALANCING) {
			throw new LeaveRefusedException(LeaveRefusedException.Reason.NOT_RUNNING, "Kafka Streams of " + instanceId
					+ " is " + streamsState + ": only a running instance can leave", null);
		}
		Optional<String> unreadable = this.controlTopicProblem.get();
		if (unreadable.isPresent()) {
			throw new LeaveRefusedException(LeaveRefusedException.Reason.CONTROL_TOPIC_UNAVAILABLE, "The "
					+ unreadable.get() + ": no plan could acknowledge the leave of " + instanceId
					+ ", so it would leave without learners; ask again once the control topic is readable", null);
		}
		if (start.hasDuplicateInstanceId()) {
			throw new LeaveRefusedException(LeaveRefusedException.Reason.DUPLICATE_INSTANCE_ID, "Instance id "
					+ instanceId + " is used by two live members (see the group plan): give each its "
					+ "own incremental.rebalance.instance.id before asking one to leave", null);
		}
		if (!force && isLastStableMember(instanceId)) {
			throw new LeaveRefusedException(LeaveRefusedException.Reason.LAST_STABLE_MEMBER, "No other member of "
					+ this.context.applicationId() + " would stay in the group (last plan): the tasks of " + instanceId
					+ " would have nowhere to go and restore from scratch when an instance comes back. Start another "
					+ "instance first, or ask again with force to leave anyway", null);
		}
		Optional<Duration> bound = timeout.or(this.context.config()::drainTimeout);
		try {
			return drain.leave(bound, source, this.context.config().rebalancingMode() == RebalancingMode.INCREMENTAL);
		}
		catch (ControlWriteException ex) {
			throw translated(ex);
		}
	}

	/**
	 * Ask another member of the group to leave, with the same leave record the command line writes, after the same
	 * checks.
	 * @param instanceId the member
	 * @param timeout that leave's drain timeout; empty for the member's own
	 * @param source who asks
	 * @param force leave even when the last plan shows no other member that would stay
	 * @return whether this call asked it (false when it is leaving already)
	 * @throws LeaveRefusedException when it cannot be asked, with the reason
	 */
	boolean leaveOfAnother(String instanceId, Optional<Duration> timeout, String source, boolean force) {
		Optional<String> unreadable = this.controlTopicProblem.get();
		if (unreadable.isPresent()) {
			throw new LeaveRefusedException(LeaveRefusedException.Reason.CONTROL_TOPIC_UNAVAILABLE, "The "
					+ unreadable.get() + ": cannot ask " + instanceId + " to leave", null);
		}
		ControlTopicReader reader = this.context.reader();
		LeaveAsk ask = LeaveAsk.decide(reader.plans(), reader.planEpoch(), List.of(instanceId), force).get(0);
		if (ask.refusal().isPresent()) {
			throw new LeaveRefusedException(switch (ask.refusal().get()) {
				case UNKNOWN_INSTANCE -> LeaveRefusedException.Reason.UNKNOWN_INSTANCE;
				case DUPLICATE_INSTANCE_ID -> LeaveRefusedException.Reason.DUPLICATE_INSTANCE_ID;
				case NO_MEMBER_WOULD_STAY -> LeaveRefusedException.Reason.LAST_STABLE_MEMBER;
			}, ask.describeRefusal(this.context.applicationId()).orElseThrow(), null);
		}
		boolean leaving = ask.incarnation()
			.flatMap((incarnation) -> reader.leaveRecord(instanceId, incarnation))
			.filter(LeaveRecord::pending)
			.isPresent();
		if (leaving) {
			return false;
		}
		write(ask.request(this.context.clocks().wall().instant(), timeout, source).orElseThrow(), "ask " + instanceId
				+ " to leave");
		return true;
	}

	/**
	 * Cancel the leave of a start of this member if it has not finished; tasks already moved stay moved.
	 * @param start the start, null before Kafka Streams were attached
	 * @return whether a leave was cancelled
	 * @throws LeaveRefusedException when the cancel cannot be written (the member stays leaving)
	 */
	boolean cancel(MemberStart start) {
		try {
			return start != null && start.drain().cancel();
		}
		catch (ControlWriteException ex) {
			throw translated(ex);
		}
	}

	/**
	 * Cancel the pending leave of another member, and wait for its answer.
	 * @param instanceId the member
	 * @param answerWait how long to wait for the member's answer
	 * @return what came of it; empty when it was not leaving
	 * @throws LeaveRefusedException when the cancel cannot be written
	 * @throws LeaveOutcomeUnknownException when whether it was written is unknown
	 */
	Optional<LeaveCancel.Result> cancelLeaveOfAnother(String instanceId, Duration answerWait) {
		Optional<LeaveRecord> leave = this.context.reader().leaveRecord(instanceId).filter(LeaveRecord::pending);
		if (leave.isEmpty()) {
			return Optional.empty();
		}
		try {
			return Optional.of(new LeaveCancel(this.context.reader(), this.context.writer()).cancel(leave.get(),
					"endpoint", answerWait));
		}
		catch (ControlWriteException ex) {
			throw translated(ex);
		}
	}

	private void write(LeaveRecord record, String what) {
		try {
			this.context.writer().writeAndWait(record, what);
		}
		catch (ControlWriteException ex) {
			throw translated(ex);
		}
	}

	/**
	 * A write that failed refuses the request; one whose outcome is unknown says so, since it may still take effect.
	 */
	private static RuntimeException translated(ControlWriteException ex) {
		return ex.outcomeUnknown() ? new LeaveOutcomeUnknownException(ex.getMessage(), ex)
				: new LeaveRefusedException(LeaveRefusedException.Reason.CONTROL_TOPIC_UNAVAILABLE, ex.getMessage(), ex);
	}

	/**
	 * Whether the last plan shows no other member that is not leaving; false while no plan is known.
	 */
	private boolean isLastStableMember(String instanceId) {
		ControlTopicReader reader = this.context.reader();
		if (reader.planEpoch().isEmpty()) {
			return false;
		}
		return reader.plans()
			.stream()
			.filter((plan) -> !plan.instanceId().equals(instanceId))
			.noneMatch((plan) -> !plan.plan().leaving());
	}

}
