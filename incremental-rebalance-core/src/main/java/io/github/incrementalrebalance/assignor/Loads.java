package io.github.incrementalrebalance.assignor;

import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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
		this.balancingFactor = balancingFactor;
		for (GroupMember member : members) {
			this.capacity.put(member.processId(), member.capacity());
			this.tasks.put(member.processId(), 0);
		}
	}

	void add(ProcessId member) {
		this.tasks.computeIfPresent(member, (id, count) -> count + 1);
	}

	void remove(ProcessId member) {
		this.tasks.computeIfPresent(member, (id, count) -> count - 1);
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

	Optional<ProcessId> mostLoaded() {
		return this.tasks.keySet().stream()
			.max(Comparator.comparingDouble(this::load).thenComparing(Comparator.reverseOrder()));
	}

	/**
	 * Whether the bucket is within tolerance: the most loaded member carries at most the factor times the least
	 * loaded one, or moving one task from the one to the other would not narrow the spread.
	 */
	boolean withinTolerance() {
		if (this.tasks.size() < 2) {
			return true;
		}
		List<ProcessId> members = List.copyOf(this.tasks.keySet());
		ProcessId most = members.stream().max(Comparator.comparingDouble(this::load)).orElseThrow();
		ProcessId least = members.stream().min(Comparator.comparingDouble(this::load)).orElseThrow();
		double max = load(most);
		double min = load(least);
		if (max <= this.balancingFactor * min + EPSILON) {
			return true;
		}
		remove(most);
		add(least);
		double spreadAfter = members.stream().mapToDouble(this::load).max().orElse(0)
				- members.stream().mapToDouble(this::load).min().orElse(0);
		remove(least);
		add(most);
		return spreadAfter >= max - min - EPSILON;
	}

}
