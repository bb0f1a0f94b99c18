package io.github.incrementalrebalance.planner;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

import org.apache.kafka.streams.processor.TaskId;

/**
 * Everything one assignment is planned from: the members and tasks Kafka reports this round, the leave requests of
 * the control topic, the plan the previous round published, the settings and the leader's clock. The planner keeps
 * nothing between rounds (any member may lead the next one): what it knows of the previous round is in here.
 *
 * @param members the members, in process id order
 * @param tasks the tasks by id
 * @param leaveRequests the leave requests known to the leader
 * @param settings the settings
 * @param now the leader's clock
 * @param lastPlan the plan of the previous generation, one per member start, when the leader knows it (it published
 * it, or read it from the control topic); empty when it does not, and then no orphan's place is known
 * @param retry when to plan again if this round cannot do its work (its end offsets are unknown, or its hand-overs
 * are held): the leader backs off while rounds in a row cannot, so that a cluster that does not answer is not
 * rebalanced every few seconds
 * @param handOversHeld why no leaving member is handed over this round, if none is: the leave requests may be out of
 * date (the control topic has not been readable for its timeout), and a cancel may be missing from them
 * @param learnerProbe when to plan again while learners exist, a safety net (their members ask for the round that
 * moves them): the leader backs off while rounds in a row change nothing, so that a long drain does not rebalance the
 * group at every probe interval
 */
public record Group(List<GroupMember> members, SortedMap<TaskId, GroupTask> tasks, List<LeaveRequest> leaveRequests,
		PlannerSettings settings, Instant now, List<MemberPlan> lastPlan, Duration retry,
		Optional<String> handOversHeld, Duration learnerProbe) {

	/** When to plan again after a first round that could not do its work. */
	public static final Duration FIRST_RETRY = Duration.ofSeconds(5);

	public Group {
		Objects.requireNonNull(settings, "settings");
		Objects.requireNonNull(now, "now");
		Objects.requireNonNull(retry, "retry");
		Objects.requireNonNull(handOversHeld, "handOversHeld");
		Objects.requireNonNull(learnerProbe, "learnerProbe");
		members = members.stream().sorted(Comparator.comparing(GroupMember::processId)).toList();
		tasks = Collections.unmodifiableSortedMap(new TreeMap<>(tasks));
		leaveRequests = List.copyOf(leaveRequests);
		lastPlan = List.copyOf(lastPlan);
	}


	/**
	 * A group from its parts, its previous plan not known.
	 * @param members the members
	 * @param tasks the tasks
	 * @param leaveRequests the leave requests
	 * @param settings the settings
	 * @param now the leader's clock
	 * @return the group
	 */
	public static Group of(Collection<GroupMember> members, Collection<GroupTask> tasks,
			Collection<LeaveRequest> leaveRequests, PlannerSettings settings, Instant now) {
		return of(members, tasks, leaveRequests, settings, now, List.of());
	}

	/**
	 * A group from its parts.
	 * @param members the members
	 * @param tasks the tasks
	 * @param leaveRequests the leave requests
	 * @param settings the settings
	 * @param now the leader's clock
	 * @param lastPlan the plan of the previous generation, when known
	 * @return the group
	 */
	public static Group of(Collection<GroupMember> members, Collection<GroupTask> tasks,
			Collection<LeaveRequest> leaveRequests, PlannerSettings settings, Instant now, List<MemberPlan> lastPlan) {
		SortedMap<TaskId, GroupTask> byId = new TreeMap<>();
		tasks.forEach((task) -> byId.put(task.id(), task));
		return new Group(List.copyOf(members), byId, List.copyOf(leaveRequests), settings, now, lastPlan,
				FIRST_RETRY, Optional.empty(), settings.learnerProbeInterval());
	}

	/**
	 * This group, planned again after the given delay if this round cannot do its work.
	 * @param retry the delay
	 * @return the group
	 */
	public Group withRetry(Duration retry) {
		return new Group(this.members, this.tasks, this.leaveRequests, this.settings, this.now, this.lastPlan, retry,
				this.handOversHeld, this.learnerProbe);
	}

	/**
	 * This group, planned again after the given delay while learners exist.
	 * @param probe the delay
	 * @return the group
	 */
	public Group withLearnerProbe(Duration probe) {
		return new Group(this.members, this.tasks, this.leaveRequests, this.settings, this.now, this.lastPlan,
				this.retry, this.handOversHeld, probe);
	}

	/**
	 * This group, its leaving members handed over to no one while the leave requests may be out of date.
	 * @param reason why they may be
	 * @return the group
	 */
	public Group withHandOversHeld(Optional<String> reason) {
		return new Group(this.members, this.tasks, this.leaveRequests, this.settings, this.now, this.lastPlan,
				this.retry, reason, this.learnerProbe);
	}

	/**
	 * The leave request that applies to a member now.
	 * @param member the member
	 * @return the request, if the member is leaving
	 */
	public Optional<LeaveRequest> leaveRequestOf(GroupMember member) {
		return this.leaveRequests.stream().filter((request) -> request.isFor(member)).findFirst();
	}

}
