package io.github.incrementalrebalance.planner;

import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.stream.Stream;

import org.apache.kafka.streams.processor.assignment.ProcessId;

/**
 * Standby replicas per member while standbys are placed. The candidates are kept ordered by their count within each
 * set of rack tag values, so that the candidate with the fewest standbys of every rack is found without going
 * through the whole group for each task.
 */
final class StandbyCounts {

	private final Map<ProcessId, GroupMember> candidates = new HashMap<>();

	private final Map<ProcessId, Integer> counts = new HashMap<>();

	private final Map<Map<String, String>, TreeSet<GroupMember>> byRackTags = new HashMap<>();

	StandbyCounts(List<GroupMember> candidates) {
		Comparator<GroupMember> fewestFirst = Comparator.comparingInt(this::of).thenComparing(GroupMember::processId);
		for (GroupMember candidate : candidates) {
			this.candidates.put(candidate.processId(), candidate);
			this.byRackTags.computeIfAbsent(candidate.rackTags(), (tags) -> new TreeSet<>(fewestFirst)).add(candidate);
		}
	}

	int of(GroupMember member) {
		return this.counts.getOrDefault(member.processId(), 0);
	}

	void add(ProcessId member) {
		GroupMember candidate = this.candidates.get(member);
		if (candidate == null) {
			this.counts.merge(member, 1, Integer::sum);
			return;
		}
		TreeSet<GroupMember> rack = this.byRackTags.get(candidate.rackTags());
		rack.remove(candidate);
		this.counts.merge(member, 1, Integer::sum);
		rack.add(candidate);
	}

	/**
	 * The candidate with the fewest standbys of each set of rack tag values.
	 * @param excluded members that cannot take the standby, or are weighed apart
	 * @return one candidate per set of rack tag values that has one
	 */
	Stream<GroupMember> fewestPerRackTags(Predicate<ProcessId> excluded) {
		return this.byRackTags.values()
			.stream()
			.flatMap((rack) -> rack.stream().filter((member) -> !excluded.test(member.processId())).findFirst().stream());
	}

}
