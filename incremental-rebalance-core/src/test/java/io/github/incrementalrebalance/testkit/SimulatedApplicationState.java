package io.github.incrementalrebalance.testkit;

import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsState;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskInfo;
import org.apache.kafka.streams.processor.assignment.TaskTopicPartition;
import org.apache.kafka.streams.state.HostInfo;

/**
 * What Kafka's {@code StreamsPartitionAssignor} hands a KIP-924 assignor, built by the {@link RoundSimulator}:
 * small implementations of the public interfaces, with Kafka's semantics (lags only with
 * {@code computeTaskLags=true}, {@code lagFor} failing for tasks without changelog).
 */
final class SimulatedApplicationState implements ApplicationState {

	private final AssignmentConfigs configs;

	private final Map<ProcessId, KafkaStreamsState> clients;

	private final Map<TaskId, TaskInfo> tasks;

	SimulatedApplicationState(AssignmentConfigs configs, Map<ProcessId, KafkaStreamsState> clients,
			Map<TaskId, TaskInfo> tasks) {
		this.configs = configs;
		this.clients = Map.copyOf(clients);
		this.tasks = Map.copyOf(tasks);
	}

	@Override
	public Map<ProcessId, KafkaStreamsState> kafkaStreamsStates(boolean computeTaskLags) {
		if (computeTaskLags) {
			return this.clients;
		}
		Map<ProcessId, KafkaStreamsState> withoutLags = new java.util.HashMap<>();
		this.clients.forEach((id, client) -> withoutLags.put(id, ((Client) client).withoutLags()));
		return withoutLags;
	}

	@Override
	public AssignmentConfigs assignmentConfigs() {
		return this.configs;
	}

	@Override
	public Map<TaskId, TaskInfo> allTasks() {
		return this.tasks;
	}

	static TaskInfo task(TaskId id, boolean changelogged, String inputTopic, String changelogTopic,
			Optional<Set<String>> racks) {
		Set<TaskTopicPartition> partitions = new java.util.HashSet<>();
		partitions.add(new Partition(new TopicPartition(inputTopic, id.partition()), true, false, racks));
		if (changelogged) {
			partitions.add(new Partition(new TopicPartition(changelogTopic, id.partition()), false, true, racks));
		}
		return new Task(id, changelogged, changelogged ? Set.of("store") : Set.of(), Set.copyOf(partitions));
	}

	record Task(TaskId id, boolean isStateful, Set<String> stateStoreNames,
			Set<TaskTopicPartition> topicPartitions) implements TaskInfo {
	}

	record Partition(TopicPartition topicPartition, boolean isSource, boolean isChangelog,
			Optional<Set<String>> rackIds) implements TaskTopicPartition {
	}

	/**
	 * One client as the leader sees it.
	 */
	record Client(ProcessId processId, int numProcessingThreads, SortedSet<TaskId> previousActiveTasks,
			SortedSet<TaskId> previousStandbyTasks, Map<TaskId, Long> lags, Map<String, String> clientTags,
			Optional<String> rackId, boolean lagsComputed) implements KafkaStreamsState {

		Client withoutLags() {
			return new Client(this.processId, this.numProcessingThreads, this.previousActiveTasks,
					this.previousStandbyTasks, this.lags, this.clientTags, this.rackId, false);
		}

		@Override
		public SortedSet<String> consumerClientIds() {
			SortedSet<String> ids = new TreeSet<>();
			for (int thread = 1; thread <= this.numProcessingThreads; thread++) {
				ids.add(this.processId.id() + "-StreamThread-" + thread + "-consumer");
			}
			return Collections.unmodifiableSortedSet(ids);
		}

		@Override
		public long lagFor(TaskId task) {
			requireLags();
			Long lag = this.lags.get(task);
			if (lag == null) {
				throw new IllegalStateException("Tried to lookup lag for unknown task " + task);
			}
			return lag;
		}

		@Override
		public SortedSet<TaskId> prevTasksByLag(String consumerClientId) {
			requireLags();
			SortedSet<TaskId> tasks = new TreeSet<>(this.previousActiveTasks);
			tasks.addAll(this.previousStandbyTasks);
			return tasks;
		}

		@Override
		public Map<TaskId, Long> statefulTasksToLagSums() {
			requireLags();
			return this.lags;
		}

		@Override
		public Optional<HostInfo> hostInfo() {
			return Optional.empty();
		}

		private void requireLags() {
			if (!this.lagsComputed) {
				throw new UnsupportedOperationException("Lags are only available with computeTaskLags=true");
			}
		}

	}

}
