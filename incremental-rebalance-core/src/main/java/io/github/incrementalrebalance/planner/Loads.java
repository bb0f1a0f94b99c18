package io.github.incrementalrebalance.planner;

import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.apache.kafka.streams.processor.assignment.ProcessId;

/**
 * Projected load of one bucket of tasks (stateful or stateless) over the members that may take work: tasks per
 * stream thread, counting moves in flight at their target. Decides whether the bucket is within the balancing
 * factor.
 */
final class Loads {

	private static final double EPSILON = 1e-9;

	private final Map<ProcessId, Integer> capacity = new HashMap<>();

	private final Map<ProcessId, Integer> tasks = new HashMap<>();

	private final double balancingFactor;

	Loads(Collection<GroupMember> members, double balancingFactor) {
		this(members.stream().collect(Collectors.toMap(GroupMember::processId, GroupMember::capacity)),
				balancingFactor);
	}

	Loads(Map<ProcessId, Integer> capacities, double balancingFactor) {
		this.balancingFactor = balancingFactor;
		this.capacity.putAll(capacities);
		capacities.keySet().forEach((member) -> this.tasks.put(member, 0));
	}

	void add(ProcessId member) {
		this.tasks.computeIfPresent(member, (id, count) -> count + 1);
	}

	void remove(ProcessId member) {
		this.tasks.computeIfPresent(member, (id, count) -> count - 1);
	}

	/**
	 * The tasks of the bucket a member carries.
	 */
	int count(ProcessId member) {
		return this.tasks.get(member);
	}

	/**
	 * The members' tasks per thread if each carried {@code counts} of them instead.
	 */
	Loads with(Map<ProcessId, Integer> counts) {
		Loads loads = new Loads(this.capacity, this.balancingFactor);
		loads.tasks.putAll(counts);
		return loads;
	}

	double load(ProcessId member) {
		return this.tasks.get(member) / (double) this.capacity.get(member);
	}

	/**
	 * The load a member would have with one more task.
	 */
	double loadWithOneMore(ProcessId member) {
		return (this.tasks.get(member) + 1) / (double) this.capacity.get(member);
	}

	/**
	 * Whether moving one task from {@code from} to {@code to} leaves {@code to} strictly lighter than {@code from}
	 * was: the only moves that make the bucket more even, and never worth undoing.
	 */
	boolean improves(ProcessId from, ProcessId to) {
		return loadWithOneMore(to) < load(from) - EPSILON;
	}

	double minLoad() {
		return this.tasks.keySet().stream().mapToDouble(this::load).min().orElse(0);
	}

	double meanLoad() {
		return this.tasks.keySet().stream().mapToDouble(this::load).average().orElse(0);
	}

	/**
	 * Whether {@code lighter}, with {@code extra} more tasks, carries strictly less than {@code heavier} would with
	 * one more task and {@code fewer} fewer.
	 */
	boolean staysLighter(ProcessId lighter, int extra, ProcessId heavier, int fewer) {
		double lighterLoad = (this.tasks.get(lighter) + extra) / (double) this.capacity.get(lighter);
		double heavierLoad = (this.tasks.get(heavier) + 1 - fewer) / (double) this.capacity.get(heavier);
		return lighterLoad < heavierLoad - EPSILON;
	}

	/**
	 * Members in the order work is taken from them: most loaded first.
	 */
	List<ProcessId> byLoadDescending() {
		return this.tasks.keySet().stream()
			.sorted(Comparator.comparingDouble(this::load).reversed().thenComparing(Comparator.naturalOrder()))
			.toList();
	}

	/**
	 * Whether the bucket is within tolerance: the most loaded member carries at most the factor times the least
	 * loaded one, or no move from a most loaded to a least loaded member {@link #improves improves} the bucket (a
	 * move that would only swap who is the most loaded is no move at all).
	 */
	boolean withinTolerance() {
		if (this.tasks.size() < 2) {
			return true;
		}
		double max = this.tasks.keySet().stream().mapToDouble(this::load).max().orElse(0);
		double min = this.tasks.keySet().stream().mapToDouble(this::load).min().orElse(0);
		if (max <= this.balancingFactor * min + EPSILON) {
			return true;
		}
		List<ProcessId> most = this.tasks.keySet().stream().filter((m) -> load(m) >= max - EPSILON).toList();
		List<ProcessId> least = this.tasks.keySet().stream().filter((m) -> load(m) <= min + EPSILON).toList();
		return most.stream().noneMatch((from) -> least.stream().anyMatch((to) -> improves(from, to)));
	}

}
