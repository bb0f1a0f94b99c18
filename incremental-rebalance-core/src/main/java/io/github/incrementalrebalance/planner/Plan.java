package io.github.incrementalrebalance.planner;

import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ProcessId;

/**
 * The outcome of one assignment: what every member does, which tasks moved, which wanted moves wait and why, and
 * when the group should rebalance again.
 *
 * @param members every member of the group, by Kafka's id of it, in that order
 * @param moves tasks given to a new owner this round
 * @param waiting moves wanted but not made
 * @param followUp when a member should trigger the next rebalance, if one is needed
 * @param unknownOffsets whether end offsets were unknown this round (no stateful task moved)
 * @param mixedModes whether a member runs mode {@code upgrading} (no learners placed)
 * @param duplicateInstanceIds instance ids that two or more live members use
 * @param outsidePolicy tasks placed on a member the placement policy does not let run them, because it lets no member
 * run them
 * @param placementCost the placement policy's cost of the active tasks where they run after this round (the
 * cross-rack traffic cost with rack-aware assignment)
 */
public record Plan(SortedMap<ProcessId, MemberPlan> members, List<Move> moves, List<WaitingMove> waiting,
		Optional<Instant> followUp, boolean unknownOffsets, boolean mixedModes, Set<String> duplicateInstanceIds,
		Set<TaskId> outsidePolicy, long placementCost) {

	public Plan {
		members = Collections.unmodifiableSortedMap(new TreeMap<>(members));
		outsidePolicy = Collections.unmodifiableSortedSet(new TreeSet<>(outsidePolicy));
		duplicateInstanceIds = Set.copyOf(duplicateInstanceIds);
		moves = List.copyOf(moves);
		waiting = List.copyOf(waiting);
		Objects.requireNonNull(followUp, "followUp");
	}

	/**
	 * The plan of one member.
	 * @param instanceId the member's instance id
	 * @return its plan
	 */
	public Optional<MemberPlan> member(String instanceId) {
		return this.members.values().stream().filter((member) -> member.instanceId().equals(instanceId)).findFirst();
	}

	/**
	 * The decision in one line, bounded: {@link #explain} while it is at most {@code limit} characters, else the same
	 * in counts (moves, learners, waiting moves, members leaving), so that a record carrying it stays small however
	 * large the group.
	 * @param now the leader's clock, to give the follow-up as a delay
	 * @param limit the most characters of the full line
	 * @return the explanation, or its counts
	 */
	public String summary(Instant now, int limit) {
		String line = explain(now);
		if (line.length() <= limit) {
			return line;
		}
		long learners = this.members.values().stream().mapToLong((member) -> member.learning().size()).sum();
		long ready = this.members.values().stream().mapToLong((member) -> member.readyLearners().size()).sum();
		long leaving = this.members.values().stream().filter(MemberPlan::leaving).count();
		long handingOver = this.members.values().stream().filter((member) -> member.handOver().isPresent()).count();
		return "moved " + this.moves.size() + " task(s); learners " + learners + " (" + ready + " ready); waiting "
				+ this.waiting.size() + "; leaving " + leaving + " (" + handingOver + " handing over); "
				+ this.members.size() + " member(s); in full in the leader's log (" + line.length() + " characters)";
	}

	/**
	 * The decision in one line: what moved, which learners warm up, what waits and why, who hands over.
	 * @param now the leader's clock, to give the follow-up as a delay
	 * @return the explanation
	 */
	public String explain(Instant now) {
		StringBuilder line = new StringBuilder();
		line.append("moved ").append(this.moves.isEmpty() ? "none" : this.moves.toString());
		String learners = this.members.values().stream()
			.flatMap((member) -> member.learning().values().stream()
				.map((learner) -> learner.task() + "@" + member.instanceId() + (learner.ready() ? " ready"
						: " lag " + learner.lag())))
			.collect(Collectors.joining(", "));
		line.append("; learners ").append(learners.isEmpty() ? "none" : "[" + learners + "]");
		line.append("; waiting ").append(this.waiting.isEmpty() ? "none" : this.waiting.toString());
		String leaving = this.members.values().stream()
			.filter(MemberPlan::leaving)
			.map((member) -> member.instanceId()
					+ member.handOver().map((reason) -> " hand-over (" + reason.name().toLowerCase(Locale.ROOT).replace('_', ' ')
							+ ")").orElse(" draining " + member.active().size() + " task(s)"))
			.collect(Collectors.joining(", "));
		if (!leaving.isEmpty()) {
			line.append("; leaving [").append(leaving).append(']');
		}
		if (this.unknownOffsets) {
			line.append("; end offsets unknown: no stateful task moved");
		}
		if (this.mixedModes) {
			line.append("; a member runs mode upgrading: no learners");
		}
		if (!this.outsidePolicy.isEmpty()) {
			line.append("; no member may run ").append(this.outsidePolicy).append(" by the placement policy: placed anyway");
		}
		if (this.placementCost > 0) {
			line.append("; placement cost ").append(this.placementCost);
		}
		if (!this.duplicateInstanceIds.isEmpty()) {
			line.append("; instance ids used by two live members: ").append(new TreeSet<>(this.duplicateInstanceIds));
		}
		this.followUp.ifPresent((at) -> line.append("; follow-up in ")
			.append(Math.max(0, at.toEpochMilli() - now.toEpochMilli()))
			.append(" ms"));
		return line.toString();
	}

}
