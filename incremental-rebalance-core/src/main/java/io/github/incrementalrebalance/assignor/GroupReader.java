package io.github.incrementalrebalance.assignor;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.incrementalrebalance.member.MemberIdentity;
import io.github.incrementalrebalance.planner.Group;
import io.github.incrementalrebalance.planner.GroupMember;
import io.github.incrementalrebalance.planner.GroupTask;
import io.github.incrementalrebalance.planner.LeaveRequest;
import io.github.incrementalrebalance.planner.PlannerSettings;
import io.github.incrementalrebalance.planner.RebalancingMode;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsState;
import org.apache.kafka.streams.processor.assignment.TaskInfo;
import org.apache.kafka.streams.processor.assignment.TaskTopicPartition;

/**
 * Reads what Kafka hands the assignor into the planner's {@link Group}.
 */
final class GroupReader {

	private GroupReader() {
	}

	/**
	 * @param state Kafka's view of the group this round
	 * @param settings the learner keys merged with Kafka's assignment configs
	 * @param leaveRequests the control view's leave requests
	 * @param now the leader's clock
	 */
	static Group read(ApplicationState state, PlannerSettings settings, List<LeaveRequest> leaveRequests,
			Instant now) {
		List<GroupMember> members = new ArrayList<>();
		List<String> rackTagKeys = state.assignmentConfigs().rackAwareAssignmentTags();
		for (KafkaStreamsState client : state.kafkaStreamsStates(true).values()) {
			members.add(member(client, rackTagKeys));
		}
		List<GroupTask> tasks = state.allTasks().values().stream()
			.map((task) -> new GroupTask(task.id(), hasChangelog(task)))
			.toList();
		return Group.of(members, tasks, leaveRequests, settings, now);
	}

	/**
	 * A member without identity tags (a plain Kafka Streams instance) is named by its process id and counts as
	 * incremental, started at the epoch.
	 */
	private static GroupMember member(KafkaStreamsState client, List<String> rackTagKeys) {
		Map<TaskId, Long> lags = client.statefulTasksToLagSums();
		Map<String, String> rackTags = new HashMap<>();
		rackTagKeys.forEach((key) -> {
			String value = client.clientTags().get(key);
			if (value != null) {
				rackTags.put(key, value);
			}
		});
		return MemberIdentity.fromClientTags(client.clientTags())
			.map((identity) -> new GroupMember(client.processId(), identity.instanceId(), identity.incarnation(),
					client.numProcessingThreads(), identity.mode(), identity.startedAt(),
					client.previousActiveTasks(), client.previousStandbyTasks(), lags, rackTags))
			.orElseGet(() -> new GroupMember(client.processId(), client.processId().id().toString(), "",
					client.numProcessingThreads(), RebalancingMode.INCREMENTAL, Instant.EPOCH,
					client.previousActiveTasks(), client.previousStandbyTasks(), lags, rackTags));
	}

	/**
	 * Only a changelog can be warmed up: a task whose stores are all without changelog is stateful to Kafka but
	 * stateless to the planner (and {@code lagFor} throws for it).
	 */
	private static boolean hasChangelog(TaskInfo task) {
		return task.topicPartitions().stream().anyMatch(TaskTopicPartition::isChangelog);
	}

}
