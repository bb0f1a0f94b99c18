package io.github.incrementalrebalance.testkit;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

import io.github.incrementalrebalance.testkit.StreamsInstance.StateChange;
import org.apache.kafka.streams.KafkaStreams.State;
import org.apache.kafka.streams.processor.TaskId;

/**
 * Where the stall of one task that moved through its learner went, step by step, from what the instances show through
 * Kafka Streams' public listeners: the old owner's last record, its close (it read its hand-over), the learner's
 * promotion (the old owner's last commit and leave, the group's round, and the state updater giving the standby up
 * lie before it; no public hook tells them apart), the end of its restore (the read past the old owner's last
 * commit), and its first record.
 * @param task the task
 * @param from the instance that ran it before
 * @param to the instance that runs it now
 * @param steps what happened, in order; a step the instances did not show is left out
 */
public record HandOverTimeline(TaskId task, String from, String to, List<Step> steps) {

	/**
	 * The timeline of a task's longest stall.
	 * @param stall the stall, as the gap meter measured it
	 * @param instances the instances the task may have run on
	 * @return the timeline, empty when the stall was not a move from one instance to another
	 */
	public static Optional<HandOverTimeline> of(GapMeter.Gap stall, List<StreamsInstance> instances) {
		if (stall.task() == null || stall.before() == null || stall.after() == null
				|| stall.before().equals(stall.after())) {
			return Optional.empty();
		}
		StreamsInstance from = named(instances, stall.before());
		StreamsInstance to = named(instances, stall.after());
		Instant start = stall.from();
		Instant end = stall.to();
		List<Step> steps = new ArrayList<>();
		steps.add(new Step("last record on " + from.name(), start));
		firstChange(from, start, end, State.PENDING_SHUTDOWN)
			.ifPresent((at) -> steps.add(new Step(from.name() + " closes: it read its hand-over", at)));
		Optional<Instant> promoted = to.restoredRecords().promotedAt(stall.task())
			.filter((at) -> within(at, start, end));
		promoted.ifPresent((at) -> steps.add(new Step("learner promoted: " + from.name()
				+ "'s last commit and leave, the group's round, the state updater's hand-off", at)));
		to.restoredRecords()
			.restoreEndedAt(stall.task())
			.filter((at) -> within(at, start, end))
			.ifPresent((at) -> steps.add(new Step("restored: read past " + from.name() + "'s last commit", at)));
		steps.add(new Step("first record on " + to.name() + ": found restored, fetched, processed", end));
		steps.sort((one, other) -> one.at().compareTo(other.at()));
		return Optional.of(new HandOverTimeline(stall.task(), from.name(), to.name(), List.copyOf(steps)));
	}

	/**
	 * @return each step with its time from the stall's start and its share of the stall
	 */
	@Override
	public String toString() {
		Instant start = this.steps.get(0).at();
		long total = Math.max(1, Duration.between(start, this.steps.get(this.steps.size() - 1).at()).toMillis());
		StringBuilder text = new StringBuilder(String.format("hand-over of %s, %s -> %s, %d ms:", this.task, this.from,
				this.to, total));
		Instant previous = start;
		for (Step step : this.steps) {
			long since = Duration.between(previous, step.at()).toMillis();
			text.append(String.format("%n  %+5d ms  %-100s (+%d ms, %d%%)", Duration.between(start, step.at()).toMillis(),
					step.what(), since, 100 * since / total));
			previous = step.at();
		}
		return text.toString();
	}

	private static StreamsInstance named(List<StreamsInstance> instances, String name) {
		return instances.stream()
			.filter((instance) -> instance.name().equals(name))
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException(name + " is not among "
					+ instances.stream().map(StreamsInstance::name).collect(Collectors.joining(", "))));
	}

	private static Optional<Instant> firstChange(StreamsInstance instance, Instant from, Instant to, State state) {
		return instance.stateChangesSince(from)
			.stream()
			.filter((change) -> change.to() == state && !change.at().isAfter(to))
			.map(StateChange::at)
			.findFirst();
	}

	private static boolean within(Instant at, Instant from, Instant to) {
		return !at.isBefore(from) && !at.isAfter(to);
	}

	/**
	 * One step of a hand-over.
	 * @param what what happened
	 * @param at when
	 */
	public record Step(String what, Instant at) {
	}

}
