package io.github.incrementalrebalance.assignor;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import io.github.incrementalrebalance.identity.MemberIdentity;
import io.github.incrementalrebalance.planner.Group;
import io.github.incrementalrebalance.planner.GroupMember;
import io.github.incrementalrebalance.planner.GroupTask;
import io.github.incrementalrebalance.planner.LeaveRequest;
import io.github.incrementalrebalance.planner.MemberPlan;
import io.github.incrementalrebalance.planner.PlannerSettings;
import io.github.incrementalrebalance.planner.RebalancingMode;
import org.apache.kafka.common.TopicPartition;
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
	 * @param racks whether to read the members' and partitions' racks: only when every one has its rack, as Kafka's
	 * rack-aware assignment asks (see {@link #missingRacks})
	 * @param changelogRecords the records in each stateful task's changelogs, when tasks weigh their state size;
	 * else empty
	 * @param lastPlan the plan of the previous generation, when the leader knows it
	 */
	static Group read(ApplicationState state, PlannerSettings settings, List<LeaveRequest> leaveRequests,
			Instant now, boolean racks, Map<TaskId, Long> changelogRecords, List<MemberPlan> lastPlan) {
		List<GroupMember> members = new ArrayList<>();
		List<String> rackTagKeys = state.assignmentConfigs().rackAwareAssignmentTags();
		for (KafkaStreamsState client : state.kafkaStreamsStates(true).values()) {
			members.add(member(client, rackTagKeys, racks ? client.rackId() : Optional.empty()));
		}
		List<GroupTask> tasks = state.allTasks().values().stream()
			.map((task) -> new GroupTask(task.id(), hasChangelog(task), racks ? partitionRacks(task) : List.of(),
					changelogRecords.containsKey(task.id()) ? OptionalLong.of(changelogRecords.get(task.id()))
							: OptionalLong.empty()))
			.toList();
		return Group.of(members, tasks, leaveRequests, settings, now, lastPlan);
	}

	/**
	 * The records in each stateful task's changelogs, read in one call for all of them.
	 * @param state Kafka's view of the group this round
	 * @param sizes the reader of changelog sizes
	 * @return per task with changelogs, the sum of its changelog partitions' records
	 * @throws IllegalStateException when the reader leaves a partition out
	 */
	static Map<TaskId, Long> changelogRecords(ApplicationState state, ChangelogSizes sizes) {
		Map<TaskId, List<TopicPartition>> changelogs = new HashMap<>();
		Set<TopicPartition> partitions = new HashSet<>();
		for (TaskInfo task : state.allTasks().values()) {
			for (TaskTopicPartition partition : task.topicPartitions()) {
				if (partition.isChangelog()) {
					changelogs.computeIfAbsent(task.id(), (id) -> new ArrayList<>()).add(partition.topicPartition());
					partitions.add(partition.topicPartition());
				}
			}
		}
		Map<TopicPartition, Long> records = sizes.records(partitions);
		Map<TaskId, Long> byTask = new HashMap<>();
		changelogs.forEach((task, taskPartitions) -> {
			long sum = 0;
			for (TopicPartition partition : taskPartitions) {
				Long size = records.get(partition);
				if (size == null) {
					throw new IllegalStateException("no size of changelog partition " + partition);
				}
				sum += size;
			}
			byTask.put(task, sum);
		});
		return byTask;
	}

	/**
	 * What keeps rack-aware placement from working this round: like Kafka, all or nothing, since a member or a
	 * partition without a rack would look either free or dear to every task.
	 * @param state Kafka's view of the group this round
	 * @return the first member without {@code client.rack} or partition without racks, if any
	 */
	static Optional<String> missingRacks(ApplicationState state) {
		for (KafkaStreamsState client : state.kafkaStreamsStates(false).values()) {
			if (client.rackId().isEmpty()) {
				String name = MemberIdentity.fromClientTags(client.clientTags())
					.map(MemberIdentity::instanceId)
					.orElse(client.processId().id().toString());
				return Optional.of("member " + name + " has no client.rack");
			}
		}
		for (TaskInfo task : state.allTasks().values()) {
			for (TaskTopicPartition partition : task.topicPartitions()) {
				if (partition.rackIds().map(Set::isEmpty).orElse(true)) {
					return Optional.of("partition " + partition.topicPartition() + " of task " + task.id()
							+ " has no known rack");
				}
			}
		}
		return Optional.empty();
	}

	/**
	 * A member without identity tags (a plain Kafka Streams instance) is named by its process id and counts as
	 * incremental, started at the epoch.
	 */
	private static List<Set<String>> partitionRacks(TaskInfo task) {
		return task.topicPartitions().stream()
			.map((partition) -> partition.rackIds().orElse(Set.of()))
			.toList();
	}

	private static GroupMember member(KafkaStreamsState client, List<String> rackTagKeys, Optional<String> rack) {
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
					client.previousActiveTasks(), client.previousStandbyTasks(), lags, rackTags, rack,
					client.clientTags()))
			.orElseGet(() -> new GroupMember(client.processId(), client.processId().id().toString(), "",
					client.numProcessingThreads(), RebalancingMode.INCREMENTAL, Instant.EPOCH,
					client.previousActiveTasks(), client.previousStandbyTasks(), lags, rackTags, rack,
					client.clientTags()));
	}

	/**
	 * Only a changelog can be warmed up: a task whose stores are all without changelog is stateful to Kafka but
	 * stateless to the planner (and {@code lagFor} throws for it).
	 */
	private static boolean hasChangelog(TaskInfo task) {
		return task.topicPartitions().stream().anyMatch(TaskTopicPartition::isChangelog);
	}

}
