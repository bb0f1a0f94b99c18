package io.github.incrementalrebalance.testkit;

import java.util.Map;
import java.util.Set;

import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment.AssignedTask;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsState;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignmentUtils;
import org.apache.kafka.streams.processor.assignment.TaskAssignmentUtils.RackAwareOptimizationParams;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.TaskAssignment;
import org.apache.kafka.streams.processor.assignment.TaskTopicPartition;
import org.apache.kafka.streams.processor.assignment.assignors.StickyTaskAssignor;

/**
 * Kafka's cross-rack traffic cost, computed from what Kafka hands an assignor:
 * {@code rack.aware.assignment.traffic_cost} for every source and changelog partition of an active task without a
 * replica in its member's rack. Counted here, apart from the planner, so that a test checks the planner's placement
 * rather than its own sum.
 */
public final class RackTraffic {

	private RackTraffic() {
	}

	/**
	 * The cost of the active tasks where they run now.
	 * @param state the group as Kafka hands it to the next assignor (previous active tasks = running now)
	 * @param trafficCost the cost of one cross-rack partition
	 * @return the cost
	 */
	public static long ofRunning(ApplicationState state, int trafficCost) {
		long cost = 0;
		for (KafkaStreamsState client : state.kafkaStreamsStates(false).values()) {
			for (TaskId task : client.previousActiveTasks()) {
				cost += cost(state, client.processId(), task, trafficCost);
			}
		}
		return cost;
	}

	/**
	 * Kafka's KIP-924 {@link StickyTaskAssignor}'s assignment of the same group, which balances the tasks and then runs
	 * Kafka's rack-aware optimization ({@code TaskAssignmentUtils.optimizeRackAwareActiveTasks}): its cost and the
	 * active tasks it gives a new owner (each restores at once, from wherever its new owner's state is).
	 * @param state the group
	 * @param trafficCost the cost of one cross-rack partition
	 * @return the cost and the moves
	 */
	public static KafkaPlacement ofKafka(ApplicationState state, int trafficCost) {
		TaskAssignment assignment = new StickyTaskAssignor().assign(state);
		Map<ProcessId, KafkaStreamsState> clients = state.kafkaStreamsStates(false);
		long cost = 0;
		int moved = 0;
		for (KafkaStreamsAssignment client : assignment.assignment()) {
			for (AssignedTask task : client.tasks().values()) {
				if (task.type() == AssignedTask.Type.ACTIVE) {
					cost += cost(state, client.processId(), task.id(), trafficCost);
					if (!clients.get(client.processId()).previousActiveTasks().contains(task.id())) {
						moved++;
					}
				}
			}
		}
		return new KafkaPlacement(cost, moved);
	}

	/**
	 * What Kafka's rack-aware optimization ({@code TaskAssignmentUtils.optimizeRackAwareActiveTasks}, Kafka's costs:
	 * stateful tasks traffic {@code trafficCost} and {@code nonOverlapCost} per move, stateless tasks traffic 1 and moves
	 * free) makes of the active tasks where they run now, keeping each member's count.
	 * @param state the group as Kafka hands it to the next assignor
	 * @param trafficCost the cost of one cross-rack partition of a stateful task
	 * @param nonOverlapCost the cost of moving a stateful task
	 * @return the cost after Kafka's optimization, counted as {@link #ofRunning}, and the stateful tasks it moved
	 */
	public static Optimized kafkaOptimizing(ApplicationState state, int trafficCost, int nonOverlapCost) {
		Map<ProcessId, KafkaStreamsAssignment> assignments = new java.util.HashMap<>();
		Map<TaskId, ProcessId> before = new java.util.HashMap<>();
		for (KafkaStreamsState client : state.kafkaStreamsStates(false).values()) {
			Set<AssignedTask> tasks = new java.util.HashSet<>();
			client.previousActiveTasks().forEach((task) -> {
				tasks.add(new AssignedTask(task, AssignedTask.Type.ACTIVE));
				before.put(task, client.processId());
			});
			assignments.put(client.processId(), KafkaStreamsAssignment.of(client.processId(), tasks));
		}
		TaskAssignmentUtils.optimizeRackAwareActiveTasks(RackAwareOptimizationParams.of(state)
			.forStatefulTasks()
			.withTrafficCostOverride(trafficCost)
			.withNonOverlapCostOverride(nonOverlapCost), assignments);
		TaskAssignmentUtils.optimizeRackAwareActiveTasks(RackAwareOptimizationParams.of(state)
			.forStatelessTasks()
			.withTrafficCostOverride(1)
			.withNonOverlapCostOverride(0), assignments);
		long stateful = 0;
		long stateless = 0;
		int movedStateful = 0;
		for (KafkaStreamsAssignment client : assignments.values()) {
			for (AssignedTask task : client.tasks().values()) {
				if (task.type() != AssignedTask.Type.ACTIVE) {
					continue;
				}
				long cost = cost(state, client.processId(), task.id(), trafficCost);
				if (state.allTasks().get(task.id()).isStateful()) {
					stateful += cost;
					if (!client.processId().equals(before.get(task.id()))) {
						movedStateful++;
					}
				}
				else {
					stateless += cost;
				}
			}
		}
		return new Optimized(stateful, stateless, movedStateful);
	}

	/**
	 * The cost of the stateful and of the stateless active tasks where they run now.
	 * @param state the group
	 * @param trafficCost the cost of one cross-rack partition
	 * @return stateful, then stateless
	 */
	public static long[] byKind(ApplicationState state, int trafficCost) {
		long[] costs = new long[2];
		for (KafkaStreamsState client : state.kafkaStreamsStates(false).values()) {
			for (TaskId task : client.previousActiveTasks()) {
				costs[state.allTasks().get(task).isStateful() ? 0 : 1] += cost(state, client.processId(), task,
						trafficCost);
			}
		}
		return costs;
	}

	/**
	 * Kafka's placement of a group, counted.
	 * @param cost its cross-rack traffic cost
	 * @param moved the active tasks it gave a new owner
	 */
	public record KafkaPlacement(long cost, int moved) {
	}

	/**
	 * Kafka's optimized placement, counted.
	 * @param stateful the stateful tasks' traffic cost
	 * @param stateless the stateless tasks' traffic cost
	 * @param movedStateful how many stateful tasks it moved
	 */
	public record Optimized(long stateful, long stateless, int movedStateful) {
	}

	private static long cost(ApplicationState state, ProcessId member, TaskId task, int trafficCost) {
		Map<ProcessId, KafkaStreamsState> clients = state.kafkaStreamsStates(false);
		String rack = clients.get(member).rackId().orElseThrow();
		long cost = 0;
		for (TaskTopicPartition partition : state.allTasks().get(task).topicPartitions()) {
			if (!partition.rackIds().orElse(Set.of()).contains(rack)) {
				cost += trafficCost;
			}
		}
		return cost;
	}

}
