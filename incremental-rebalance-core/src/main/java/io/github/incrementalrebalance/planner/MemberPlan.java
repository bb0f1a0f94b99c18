package io.github.incrementalrebalance.planner;

import java.util.Collections;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.kafka.streams.processor.TaskId;

/**
 * What one start of a member does after this round. The leader's planner makes it, the control topic carries it to
 * every member (as a {@code PlanRecord}, with the generation it was adopted in), and the member, the endpoint and the
 * command line read it back: one type from the decision to what people see.
 *
 * @param instanceId its instance id
 * @param incarnation which start of the instance the plan is for
 * @param active tasks it runs
 * @param learning learners it warms up, by task
 * @param beingLearned tasks it runs while their learner warms up elsewhere, or waits for a place to (a drain's cap)
 * @param standby standby replicas it keeps ({@code num.standby.replicas}), learners excluded
 * @param leaving whether it asked to leave
 * @param leaveId the identity of the leave request this plan acts on: present exactly when leaving
 * @param handOver set when it should leave the group now
 * @param mode the rebalancing mode it runs, as its client tags say
 */
public record MemberPlan(String instanceId, String incarnation, SortedSet<TaskId> active,
		SortedMap<TaskId, Learner> learning, SortedSet<TaskId> beingLearned, SortedSet<TaskId> standby,
		boolean leaving, Optional<String> leaveId, Optional<HandOverReason> handOver, RebalancingMode mode) {

	public MemberPlan {
		Objects.requireNonNull(instanceId, "instanceId");
		Objects.requireNonNull(incarnation, "incarnation");
		Objects.requireNonNull(leaveId, "leaveId");
		Objects.requireNonNull(handOver, "handOver");
		Objects.requireNonNull(mode, "mode");
		if (leaving != leaveId.isPresent()) {
			throw new IllegalArgumentException("a plan names the leave it acts on exactly when its member is leaving: "
					+ instanceId + " leaving=" + leaving + ", leave " + leaveId.orElse("none"));
		}
		active = Collections.unmodifiableSortedSet(new TreeSet<>(active));
		learning = Collections.unmodifiableSortedMap(new TreeMap<>(learning));
		beingLearned = Collections.unmodifiableSortedSet(new TreeSet<>(beingLearned));
		standby = Collections.unmodifiableSortedSet(new TreeSet<>(standby));
	}

	/**
	 * Every task the member keeps state of without running it: learners and standbys.
	 * @return the tasks Kafka gets as standby tasks for this member
	 */
	public SortedSet<TaskId> standbyTasks() {
		SortedSet<TaskId> tasks = new TreeSet<>(this.standby);
		tasks.addAll(this.learning.keySet());
		return Collections.unmodifiableSortedSet(tasks);
	}

	/**
	 * The learners that were ready when planned.
	 * @return their tasks
	 */
	public SortedSet<TaskId> readyLearners() {
		SortedSet<TaskId> ready = new TreeSet<>();
		this.learning.values().stream().filter(Learner::ready).forEach((learner) -> ready.add(learner.task()));
		return Collections.unmodifiableSortedSet(ready);
	}

	/**
	 * Whether this plan acts on a leave request.
	 * @param leaveId the request
	 * @return true when the leader acted on it
	 */
	public boolean actsOn(String leaveId) {
		return this.leaveId.filter(leaveId::equals).isPresent();
	}

}
