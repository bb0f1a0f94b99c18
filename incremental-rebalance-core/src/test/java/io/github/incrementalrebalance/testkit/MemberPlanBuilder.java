package io.github.incrementalrebalance.testkit;

import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

import io.github.incrementalrebalance.control.PlanRecord;
import io.github.incrementalrebalance.planner.HandOverReason;
import io.github.incrementalrebalance.planner.Learner;
import io.github.incrementalrebalance.planner.MemberPlan;
import io.github.incrementalrebalance.planner.RebalancingMode;
import org.apache.kafka.streams.processor.TaskId;

/**
 * A member's plan as a test writes it, tasks by name: {@code plan("b", "b-1").active("0_1").learning("0_2", 900)}.
 */
public final class MemberPlanBuilder {

	private final String instanceId;

	private final String incarnation;

	private final SortedSet<TaskId> active = new TreeSet<>();

	private final SortedMap<TaskId, Learner> learning = new TreeMap<>();

	private final SortedSet<TaskId> beingLearned = new TreeSet<>();

	private final SortedSet<TaskId> standby = new TreeSet<>();

	private boolean leaving;

	private Optional<String> leaveId = Optional.empty();

	private Optional<HandOverReason> handOver = Optional.empty();

	private RebalancingMode mode = RebalancingMode.INCREMENTAL;

	private MemberPlanBuilder(String instanceId, String incarnation) {
		this.instanceId = instanceId;
		this.incarnation = incarnation;
	}

	public static MemberPlanBuilder plan(String instanceId, String incarnation) {
		return new MemberPlanBuilder(instanceId, incarnation);
	}

	public MemberPlanBuilder active(String... tasks) {
		add(this.active, tasks);
		return this;
	}

	public MemberPlanBuilder learning(String task, long lag) {
		return learner(task, lag, false);
	}

	public MemberPlanBuilder ready(String task, long lag) {
		return learner(task, lag, true);
	}

	public MemberPlanBuilder beingLearned(String... tasks) {
		add(this.active, tasks);
		add(this.beingLearned, tasks);
		return this;
	}

	public MemberPlanBuilder standby(String... tasks) {
		add(this.standby, tasks);
		return this;
	}

	public MemberPlanBuilder leaving(String leaveId) {
		this.leaving = true;
		this.leaveId = Optional.of(leaveId);
		return this;
	}

	public MemberPlanBuilder handOver(Optional<HandOverReason> handOver) {
		this.handOver = handOver;
		return this;
	}

	public MemberPlanBuilder mode(RebalancingMode mode) {
		this.mode = mode;
		return this;
	}

	public MemberPlan build() {
		return new MemberPlan(this.instanceId, this.incarnation, this.active, this.learning, this.beingLearned,
				this.standby, this.leaving, this.leaveId, this.handOver, this.mode);
	}

	public PlanRecord record(int generation) {
		return new PlanRecord(build(), generation);
	}

	private MemberPlanBuilder learner(String task, long lag, boolean ready) {
		TaskId id = TaskId.parse(task);
		this.learning.put(id, new Learner(id, lag, ready));
		return this;
	}

	private static void add(SortedSet<TaskId> set, String... tasks) {
		for (String task : tasks) {
			set.add(TaskId.parse(task));
		}
	}

}
