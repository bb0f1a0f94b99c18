package io.github.incrementalrebalance.control;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.github.incrementalrebalance.assignor.MemberPlan;
import io.github.incrementalrebalance.assignor.Plan;
import io.github.incrementalrebalance.assignor.PlanListener;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.AssignmentError;

/**
 * Publishes each plan this instance computes as leader to the control topic: one {@code plan/<id>} per member, then
 * the {@code plan-epoch}. Runs on the leader's stream thread, so it only hands the records to the writer's thread.
 */
public final class PlanPublisher implements PlanListener {

	private final ControlTopicWriter writer;

	private final String leader;

	private final Clock clock;

	/**
	 * @param writer the control topic writer
	 * @param leader this instance's id, named as leader in the epoch
	 * @param clock the clock giving the epoch
	 */
	public PlanPublisher(ControlTopicWriter writer, String leader, Clock clock) {
		this.writer = writer;
		this.leader = leader;
		this.clock = clock;
	}

	@Override
	public void onPlan(Plan plan, AssignmentError error) {
		if (error != AssignmentError.NONE) {
			return;
		}
		Instant at = this.clock.instant();
		List<ControlRecord> records = new ArrayList<>();
		for (MemberPlan member : plan.members()) {
			records.add(PlanRecord.of(member, at));
		}
		records.add(new PlanEpoch(at.toEpochMilli(), this.leader, at, plan.explain(at)));
		this.writer.publishPlan(records);
	}

}
