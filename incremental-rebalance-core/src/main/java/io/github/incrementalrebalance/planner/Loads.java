package io.github.incrementalrebalance.planner;

import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;

import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ProcessId;

/**
 * Projected load of one bucket of tasks (stateful or stateless) over the members that may take work: the weight of
 * the tasks per stream thread, counting moves in flight at their target, each task weighing what the
 * {@link PlacementPolicy#weight policy} says (one by default, so the load is tasks per thread). Decides whether the
 * bucket is within the balancing factor.
 */
final class Loads {

	private static final double EPSILON = 1e-9;

	private final Map<ProcessId, Integer> capacity = new HashMap<>();

	private final ToLongFunction<TaskId> weight;

	private final double balancingFactor;

	private final Map<ProcessId, Long> weights = new HashMap<>();

	/** Per member, how many of its tasks weigh each weight: the lightest is what a move can shift at least. */
	private final Map<ProcessId, TreeMap<Long, Integer>> tasksByWeight = new HashMap<>();

	Loads(Collection<GroupMember> members, double balancingFactor, ToLongFunction<TaskId> weight) {
		this(members.stream().collect(Collectors.toMap(GroupMember::processId, GroupMember::capacity)),
				balancingFactor, weight);
	}

	Loads(Map<ProcessId, Integer> capacities, double balancingFactor, ToLongFunction<TaskId> weight) {
		this.balancingFactor = balancingFactor;
		this.weight = weight;
		this.capacity.putAll(capacities);
		capacities.keySet().forEach((member) -> {
			this.weights.put(member, 0L);
			this.tasksByWeight.put(member, new TreeMap<>());
		});
	}

	void add(ProcessId member, TaskId task) {
		if (this.weights.containsKey(member)) {
			long taskWeight = this.weight.applyAsLong(task);
			this.weights.merge(member, taskWeight, Long::sum);
			this.tasksByWeight.get(member).merge(taskWeight, 1, Integer::sum);
		}
	}

	void remove(ProcessId member, TaskId task) {
		if (this.weights.containsKey(member)) {
			long taskWeight = this.weight.applyAsLong(task);
			this.weights.merge(member, -taskWeight, Long::sum);
			this.tasksByWeight.get(member).computeIfPresent(taskWeight, (w, n) -> (n == 1) ? null : n - 1);
		}
	}

	/**
	 * Move a task's load from one member to another.
	 */
	void move(TaskId task, ProcessId from, ProcessId to) {
		remove(from, task);
		add(to, task);
	}

	/**
	 * The tasks of the bucket a member carries.
	 */
	int count(ProcessId member) {
		return this.tasksByWeight.get(member).values().stream().mapToInt(Integer::intValue).sum();
	}

	long weight(TaskId task) {
		return this.weight.applyAsLong(task);
	}

	/**
	 * A copy to try moves on.
	 */
	Loads copy() {
		Loads loads = new Loads(this.capacity, this.balancingFactor, this.weight);
		loads.weights.putAll(this.weights);
		this.tasksByWeight.forEach((member, byWeight) -> loads.tasksByWeight.put(member, new TreeMap<>(byWeight)));
		return loads;
	}

	double load(ProcessId member) {
		return this.weights.get(member) / (double) this.capacity.get(member);
	}

	/**
	 * The load a member would have with a task more.
	 */
	double loadWith(ProcessId member, TaskId task) {
		return loadWith(member, this.weight.applyAsLong(task));
	}

	private double loadWith(ProcessId member, long weight) {
		return (this.weights.get(member) + weight) / (double) this.capacity.get(member);
	}

	/**
	 * Whether moving a task from {@code from} to {@code to} leaves {@code to} strictly lighter than {@code from} was:
	 * the only moves that make the bucket more even, and never worth undoing.
	 */
	boolean improves(ProcessId from, ProcessId to, TaskId task) {
		return improves(from, to, this.weight.applyAsLong(task));
	}

	private boolean improves(ProcessId from, ProcessId to, long taskWeight) {
		return loadWith(to, taskWeight) < load(from) - EPSILON;
	}

	double minLoad() {
		return this.weights.keySet().stream().mapToDouble(this::load).min().orElse(0);
	}

	double meanLoad() {
		return this.weights.keySet().stream().mapToDouble(this::load).average().orElse(0);
	}

	/**
	 * Whether {@code lighter}, with {@code extra} more weight (less, when negative), carries strictly less than
	 * {@code heavier} would with {@code task} back and {@code fewer} less weight.
	 */
	boolean staysLighter(ProcessId lighter, long extra, ProcessId heavier, TaskId task, long fewer) {
		double lighterLoad = (this.weights.get(lighter) + extra) / (double) this.capacity.get(lighter);
		double heavierLoad = (this.weights.get(heavier) + this.weight.applyAsLong(task) - fewer)
				/ (double) this.capacity.get(heavier);
		return lighterLoad < heavierLoad - EPSILON;
	}

	/**
	 * Members in the order work is taken from them: most loaded first.
	 */
	List<ProcessId> byLoadDescending() {
		return this.weights.keySet().stream()
			.sorted(Comparator.comparingDouble(this::load).reversed().thenComparing(Comparator.naturalOrder()))
			.toList();
	}

	/**
	 * Whether the bucket is within tolerance: the most loaded member carries at most the factor times the least
	 * loaded one, or no move of a most loaded member's lightest task to a least loaded member {@link #improves
	 * improves} the bucket (a move that would only swap who is the most loaded is no move at all).
	 */
	boolean withinTolerance() {
		if (this.weights.size() < 2) {
			return true;
		}
		double max = this.weights.keySet().stream().mapToDouble(this::load).max().orElse(0);
		double min = this.weights.keySet().stream().mapToDouble(this::load).min().orElse(0);
		if (max <= this.balancingFactor * min + EPSILON) {
			return true;
		}
		List<ProcessId> most = this.weights.keySet().stream().filter((m) -> load(m) >= max - EPSILON).toList();
		List<ProcessId> least = this.weights.keySet().stream().filter((m) -> load(m) <= min + EPSILON).toList();
		return most.stream()
			.filter((from) -> !this.tasksByWeight.get(from).isEmpty())
			.noneMatch((from) -> least.stream()
				.anyMatch((to) -> improves(from, to, this.tasksByWeight.get(from).firstKey())));
	}

}
