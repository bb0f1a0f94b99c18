package io.github.incrementalrebalance.control;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import io.github.incrementalrebalance.control.ProgressRecord.LearnerProgress;
import io.github.incrementalrebalance.planner.Learner;
import io.github.incrementalrebalance.planner.MemberPlan;
import org.apache.kafka.streams.processor.TaskId;

/**
 * A leaving member's hand-over as the control topic shows it: the tasks it hands over, how many of their learners are
 * ready, and when it will end, from its learners' progress records and its leave's deadline. Any instance can
 * compute it; nothing is read here.
 *
 * @param instanceId the leaving member
 * @param incarnation its start
 * @param tasks the tasks it runs while their learners warm up elsewhere
 * @param learnersReady how many of those learners are ready
 * @param slowestTask the task whose learner will be ready last, if every learner has an ETA
 * @param readyAt when its last learner will be ready at its current rate, on the learner's clock; empty while a
 * learner has not published an ETA
 * @param deadline when it leaves even if its learners are not ready, on the requester's clock
 */
public record DrainProgress(String instanceId, String incarnation, List<String> tasks, int learnersReady,
		Optional<String> slowestTask, Optional<Instant> readyAt, Optional<Instant> deadline) {

	public DrainProgress {
		Objects.requireNonNull(instanceId, "instanceId");
		Objects.requireNonNull(incarnation, "incarnation");
		tasks = List.copyOf(tasks);
		Objects.requireNonNull(slowestTask, "slowestTask");
		Objects.requireNonNull(readyAt, "readyAt");
		Objects.requireNonNull(deadline, "deadline");
	}

	/**
	 * When the drain will end: its last learner ready, or its deadline if that comes first.
	 * @return the estimate, empty while neither is known
	 */
	public Optional<Instant> eta() {
		if (this.readyAt.isEmpty()) {
			return this.deadline;
		}
		return Optional.of(this.deadline.filter((deadline) -> deadline.isBefore(this.readyAt.get()))
			.orElse(this.readyAt.get()));
	}

	/**
	 * The drain of one member start, as the control topic read so far shows it.
	 * @param reader the control topic's reader
	 * @param instanceId the member
	 * @param incarnation its start
	 * @param now the time a learner that is ready already counts as ready at, unless its record says when
	 * @return its drain, empty unless the current plan shows it leaving
	 */
	public static Optional<DrainProgress> of(ControlTopicReader reader, String instanceId, String incarnation,
			Instant now) {
		return of(reader.plans(), reader.progress(), reader.leaveRecords(), now).stream()
			.filter((drain) -> drain.instanceId().equals(instanceId) && drain.incarnation().equals(incarnation))
			.findFirst();
	}

	/**
	 * The drains of the leaving members of a plan.
	 * @param plans the current plan, one record per member start
	 * @param progress the learners' progress records
	 * @param leaves the leave records, by instance id
	 * @param now the time a learner that is ready already counts as ready at, unless its record says when
	 * @return one drain per leaving member, by instance id
	 */
	public static List<DrainProgress> of(List<PlanRecord> plans, List<ProgressRecord> progress,
			Map<String, LeaveRecord> leaves, Instant now) {
		Map<String, Learning> learnerOf = new HashMap<>();
		Map<String, ProgressRecord> progressOf = new HashMap<>();
		progress.forEach((record) -> progressOf.put(record.key(), record));
		for (PlanRecord planRecord : plans) {
			MemberPlan plan = planRecord.plan();
			ProgressRecord record = progressOf.get(ProgressRecord.keyOf(plan.instanceId(), plan.incarnation()));
			for (Learner planned : plan.learning().values()) {
				String task = planned.task().toString();
				Optional<LearnerProgress> learner = Optional.ofNullable(record)
					.flatMap((r) -> r.learners().stream().filter((l) -> l.task().equals(task)).findFirst());
				learnerOf.put(task, new Learning(task, planned.ready(), Optional.ofNullable(record)
					.map(ProgressRecord::at).orElse(now), learner));
			}
		}
		List<DrainProgress> drains = new ArrayList<>();
		for (PlanRecord planRecord : plans) {
			MemberPlan plan = planRecord.plan();
			if (!plan.leaving()) {
				continue;
			}
			List<String> tasks = plan.beingLearned().stream().map(TaskId::toString).toList();
			List<Learning> learners = tasks.stream()
				.map((task) -> learnerOf.getOrDefault(task, new Learning(task, false, now, Optional.empty())))
				.toList();
			int ready = (int) learners.stream().filter(Learning::ready).count();
			boolean allKnown = learners.stream().allMatch((learner) -> learner.readyAt().isPresent());
			Optional<Learning> slowest = allKnown ? learners.stream()
				.max(Comparator.comparing((Learning learner) -> learner.readyAt().get())) : Optional.empty();
			Optional<Instant> readyAt = learners.isEmpty() ? Optional.of(now) : slowest.flatMap(Learning::readyAt);
			Optional<Instant> deadline = Optional.ofNullable(leaves.get(plan.instanceId()))
				.filter((leave) -> leave.incarnation().equals(plan.incarnation()) && leave.pending())
				.flatMap(LeaveRecord::deadline);
			drains.add(new DrainProgress(plan.instanceId(), plan.incarnation(), tasks, ready,
					slowest.map(Learning::task), readyAt, deadline));
		}
		return drains;
	}

	/**
	 * What the group knows of one learner: ready in the plan, or as its last progress record says.
	 * @param measuredAt when its member measured it (now, without a record)
	 */
	private record Learning(String task, boolean readyInPlan, Instant measuredAt, Optional<LearnerProgress> progress) {

		boolean ready() {
			return this.readyInPlan || this.progress.map(LearnerProgress::ready).orElse(false);
		}

		Optional<Instant> readyAt() {
			if (this.readyInPlan) {
				return Optional.of(this.measuredAt);
			}
			return this.progress.flatMap(LearnerProgress::eta).map(this.measuredAt::plus);
		}

	}

}
