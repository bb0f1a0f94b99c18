package io.github.incrementalrebalance.assignor;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.github.incrementalrebalance.planner.MemberPlan;
import io.github.incrementalrebalance.planner.Plan;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment.AssignedTask;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.TaskAssignment;

/**
 * Writes a {@link Plan} as Kafka's {@link TaskAssignment}: actives, then learners and standbys as standby tasks, and
 * the follow-up on one member that is not leaving (Kafka forgets a deadline that a later assignment does not repeat,
 * so every plan carries it again).
 */
final class AssignmentWriter {

	private AssignmentWriter() {
	}

	static TaskAssignment write(Plan plan) {
		List<KafkaStreamsAssignment> assignments = new ArrayList<>();
		Optional<ProcessId> followUpHolder = plan.members().entrySet().stream()
			.filter((member) -> !member.getValue().leaving())
			.map(Map.Entry::getKey)
			.findFirst()
			.or(() -> plan.members().keySet().stream().findFirst());
		for (Map.Entry<ProcessId, MemberPlan> entry : plan.members().entrySet()) {
			MemberPlan member = entry.getValue();
			Set<AssignedTask> tasks = new HashSet<>();
			member.active().forEach((task) -> tasks.add(new AssignedTask(task, AssignedTask.Type.ACTIVE)));
			member.standbyTasks().forEach((task) -> tasks.add(new AssignedTask(task, AssignedTask.Type.STANDBY)));
			KafkaStreamsAssignment assignment = KafkaStreamsAssignment.of(entry.getKey(), tasks);
			if (plan.followUp().isPresent() && followUpHolder.get().equals(entry.getKey())) {
				assignment = assignment.withFollowupRebalance(plan.followUp().get());
			}
			assignments.add(assignment);
		}
		return new TaskAssignment(assignments);
	}

}
