package io.github.incrementalrebalance.planner;

import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ProcessId;

/**
 * The standby step: Kafka's {@code num.standby.replicas} per stateful task, on members that neither run it nor learn
 * it, in another zone first; and, in a round without end offsets, the standbys that keep warming learners.
 */
final class Standbys {

	private final RoundState round;

	Standbys(RoundState round) {
		this.round = round;
	}

	/**
	 * With lags unknown nobody can tell a learner from a leftover directory: keep every standby that members
	 * already hold of a task without a learner this round, so no warming learner is dropped for one bad round.
	 */
	void keepLearnersWhileOffsetsAreUnknown() {
		for (GroupMember member : this.round.mayTakeWork) {
			if (this.round.leaving.containsKey(member.processId())) {
				continue;
			}
			for (TaskId task : member.previousStandby()) {
				if (this.round.isStateful(task) && !member.processId().equals(this.round.active.get(task))
						&& !this.round.learnerAt.containsKey(task)) {
					this.round.standbys.computeIfAbsent(task, (t) -> new TreeSet<>()).add(member.processId());
				}
			}
		}
	}

	/**
	 * {@code num.standby.replicas} per stateful task, on members that neither run it nor learn it and are not
	 * leaving: first those whose rack tags share the fewest values with the task's owner and its other replicas
	 * (so a zone can fail), then previous holders, the most caught up first, then the fewest standbys.
	 * <p>
	 * Only the few members that ran or hold a task report a lag of their own for it; every other member reports
	 * the task's whole changelog. So each task compares its reporters one by one, and of all the others only the
	 * one with the fewest standbys in each set of rack tags: linear in tasks, not in tasks times members.
	 */
	void apply() {
		int replicas = this.round.settings.numStandbyReplicas();
		if (replicas == 0) {
			return;
		}
		StandbyCounts counts = new StandbyCounts(this.round.group.members().stream()
			.filter((member) -> !this.round.leaving.containsKey(member.processId()))
			.toList());
		this.round.standbys.values().forEach((holders) -> holders.forEach(counts::add));
		for (GroupTask task : this.round.group.tasks().values()) {
			if (!task.stateful()) {
				continue;
			}
			Set<ProcessId> holders = this.round.standbys.computeIfAbsent(task.id(), (t) -> new TreeSet<>());
			List<GroupMember> reporters = this.round.reportedBy.getOrDefault(task.id(), List.of());
			Set<ProcessId> reporterIds = reporters.stream().map(GroupMember::processId).collect(Collectors.toSet());
			while (holders.size() < replicas) {
				Set<ProcessId> replicasOfTask = new HashSet<>(holders);
				Optional.ofNullable(this.round.active.get(task.id())).ifPresent(replicasOfTask::add);
				Optional.ofNullable(this.round.learnerAt.get(task.id())).ifPresent(replicasOfTask::add);
				Comparator<GroupMember> order = Comparator
					.comparingLong((GroupMember member) -> sharedRackTags(member, replicasOfTask))
					.thenComparing((member) -> !member.holds(task.id()))
					.thenComparingLong((member) -> member.lag(task.id()))
					.thenComparingInt(counts::of)
					.thenComparing(GroupMember::processId);
				Optional<GroupMember> next = Stream
					.concat(reporters.stream()
						.filter((member) -> !this.round.leaving.containsKey(member.processId())
								&& !replicasOfTask.contains(member.processId())
								&& (!this.round.policyApplies || this.round.policy.mayRun(task, member))),
							counts.fewestPerRackTags((member) -> reporterIds.contains(member)
									|| replicasOfTask.contains(member)
									|| (this.round.policyApplies && !this.round.mayRun(task, member))))
					.min(order);
				if (next.isEmpty()) {
					break;
				}
				holders.add(next.get().processId());
				counts.add(next.get().processId());
			}
		}
	}

	private long sharedRackTags(GroupMember candidate, Set<ProcessId> replicas) {
		return candidate.rackTags().entrySet().stream()
			.filter((tag) -> replicas.stream()
				.anyMatch((replica) -> tag.getValue().equals(this.round.members.get(replica).rackTags().get(tag.getKey()))))
			.count();
	}

}
