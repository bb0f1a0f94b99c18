package io.github.incrementalrebalance.member;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.TopologyDescription;
import org.apache.kafka.streams.processor.TaskId;

/**
 * Finds the task a state store partition belongs to. Kafka's restore and lag APIs name a store and a partition, the
 * assignor speaks of tasks: a task is its subtopology and its partition, and every store lives in one subtopology.
 */
public final class StoreTasks {

	private final Map<String, Integer> subtopologyByStore;

	private StoreTasks(Map<String, Integer> subtopologyByStore) {
		this.subtopologyByStore = Map.copyOf(subtopologyByStore);
	}

	/**
	 * Read which subtopology holds each store.
	 * @param description the topology's description
	 * @return the mapping
	 */
	public static StoreTasks of(TopologyDescription description) {
		Map<String, Integer> subtopologyByStore = new HashMap<>();
		for (TopologyDescription.Subtopology subtopology : description.subtopologies()) {
			for (TopologyDescription.Node node : subtopology.nodes()) {
				if (node instanceof TopologyDescription.Processor processor) {
					processor.stores().forEach((store) -> subtopologyByStore.put(store, subtopology.id()));
				}
			}
		}
		return new StoreTasks(subtopologyByStore);
	}

	/**
	 * The task of a store partition.
	 * @param storeName the store
	 * @param partition the partition of the store (and of its changelog)
	 * @return the task, or empty for a store this topology does not have
	 */
	public Optional<TaskId> taskOf(String storeName, int partition) {
		Integer subtopology = this.subtopologyByStore.get(storeName);
		return (subtopology != null) ? Optional.of(new TaskId(subtopology, partition)) : Optional.empty();
	}

	/**
	 * The state stores of a task: those of its subtopology.
	 * @param task the task
	 * @return the store names, sorted; empty for a stateless task
	 */
	public List<String> storesOf(TaskId task) {
		return this.subtopologyByStore.entrySet()
			.stream()
			.filter((entry) -> entry.getValue() == task.subtopology())
			.map(Map.Entry::getKey)
			.sorted()
			.toList();
	}

	/**
	 * The task of a changelog partition of a store.
	 * @param storeName the store
	 * @param changelog the changelog partition
	 * @return the task, or empty for a store this topology does not have
	 */
	public Optional<TaskId> taskOf(String storeName, TopicPartition changelog) {
		return taskOf(storeName, changelog.partition());
	}

}
