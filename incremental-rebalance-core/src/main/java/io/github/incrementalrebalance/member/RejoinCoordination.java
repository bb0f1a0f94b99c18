package io.github.incrementalrebalance.member;

import io.github.incrementalrebalance.control.ControlRecord;
import io.github.incrementalrebalance.control.ControlTopicReader;
import io.github.incrementalrebalance.control.ControlWriter;
import io.github.incrementalrebalance.control.LeaveRecord;
import io.github.incrementalrebalance.control.PlanEpoch;
import io.github.incrementalrebalance.control.RejoinRequest;
import io.github.incrementalrebalance.identity.MemberIdentity;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The members rejoin a rebalance together instead of one heartbeat apart
 * ({@code incremental.rebalance.rejoin.requests}): a member that starts a rebalance for a hand-over, or joins one by
 * itself, announces it on the control topic, and the others follow; a member that just left the group is followed
 * too, since the others would otherwise learn of its LeaveGroup at their next heartbeat.
 */
final class RejoinCoordination {

	private static final Logger logger = LoggerFactory.getLogger(RejoinCoordination.class);

	private final MemberContext context;

	RejoinCoordination(MemberContext context) {
		this.context = context;
	}

	/**
	 * Ask the others to rejoin now. Called on a stream thread, which must not wait for the cluster: the writer sends
	 * on its own thread.
	 * @param self this start of the member
	 * @param trigger its rebalance trigger
	 * @param reason why it rebalances
	 */
	void askOthers(MemberIdentity self, RebalanceTrigger trigger, String reason) {
		ControlTopicReader reader = this.context.reader();
		// a new member completed no generation: the last one planned is what the others have completed
		int generation = (trigger.observedGeneration() >= 0) ? trigger.observedGeneration()
				: reader.planEpoch().map(PlanEpoch::generation).orElse(PlanEpoch.UNKNOWN_GENERATION);
		RejoinRequest request = new RejoinRequest(self.instanceId(), self.incarnation(), generation, reason,
				this.context.clocks().wall().instant());
		this.context.writer().write(request).whenComplete((written, failure) -> {
			if (failure != null) {
				logger.warn("Could not ask the other members to rejoin ({}): they rejoin at their next heartbeat",
						reason, failure);
			}
		});
	}

	/**
	 * Whether the current plan holds a start of this instance: a static member restarting within its session is still
	 * in the group, and the coordinator gives it its tasks back without a round, which announcing its join would
	 * start.
	 * @param self this start of the member
	 * @return true when the leader's last plan has this instance id
	 */
	boolean inCurrentPlan(MemberIdentity self) {
		return this.context.reader().plans().stream().anyMatch((plan) -> plan.instanceId().equals(self.instanceId()));
	}

	/**
	 * Follow what another member announced: a rebalance it started, or its end after it left the group, unless this
	 * member completed a rebalance since. Called on the control topic reader's thread: it only records a request.
	 * @param record the record read
	 * @param self this start of the member
	 * @param trigger its rebalance trigger
	 */
	void follow(ControlRecord record, MemberIdentity self, RebalanceTrigger trigger) {
		ControlTopicReader reader = this.context.reader();
		if (record instanceof RejoinRequest rejoin) {
			boolean own = rejoin.instanceId().equals(self.instanceId()) && rejoin.incarnation().equals(self.incarnation());
			if (!own && rejoin.generation() >= trigger.observedGeneration()) {
				trigger.follow(rejoin.reason() + " (" + self.instanceId() + " rejoins as " + rejoin.instanceId()
						+ " asked)", rejoin.generation());
			}
		}
		else if (record instanceof LeaveRecord leave && leave.ended().isPresent()
				&& reader.plan(leave.instanceId(), leave.incarnation()).isPresent()) {
			int planGeneration = reader.planEpoch().map(PlanEpoch::generation).orElse(PlanEpoch.UNKNOWN_GENERATION);
			if (planGeneration >= trigger.observedGeneration()) {
				trigger.follow("incremental-rebalance: " + leave.instanceId() + " left the group ("
						+ leave.ended().get() + ")", planGeneration);
			}
		}
	}

}
