package io.github.incrementalrebalance.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import io.github.incrementalrebalance.control.ControlTopicReader;
import io.github.incrementalrebalance.control.DrainProgress;
import io.github.incrementalrebalance.control.LeaveRecord;
import io.github.incrementalrebalance.control.PlanEpoch;
import io.github.incrementalrebalance.control.PlanRecord;
import io.github.incrementalrebalance.control.ProgressRecord.LearnerProgress;
import io.github.incrementalrebalance.control.ProgressRecord;
import io.github.incrementalrebalance.planner.MemberPlan;
import org.apache.kafka.streams.processor.TaskId;

/**
 * The group as the control topic shows it at one moment: the last plan, each member with its learners' progress and
 * its drain's ETA, and the members that left lately. Printed as a table or as JSON; times are ISO-8601 text.
 *
 * @param at when it was read, on this machine's clock
 * @param applicationId the application
 * @param plan the last plan, null before any
 * @param members the members of the last plan
 * @param left the members that left lately, with how their leave ended
 */
record GroupReport(String at, String applicationId, Plan plan, List<Member> members, List<Left> left) {

	private static final String ROW = "%-24s %-12s %-34s %-28s %-44s %s%n";

	static GroupReport read(String applicationId, ControlTopicReader reader, Instant now) {
		Plan plan = reader.planEpoch().map(Plan::of).orElse(null);
		List<PlanRecord> plans = reader.plans();
		List<ProgressRecord> progress = reader.progress();
		Map<String, LeaveRecord> leaves = reader.leaveRecords();
		Map<String, DrainProgress> drains = new HashMap<>();
		DrainProgress.of(plans, progress, leaves, now).forEach((drain) -> drains.put(drain.instanceId(), drain));
		Map<String, ProgressRecord> progressOf = new HashMap<>();
		progress.forEach((record) -> progressOf.put(record.key(), record));
		List<Member> members = new ArrayList<>();
		for (MemberPlan member : plans.stream().map(PlanRecord::plan).toList()) {
			Optional<LeaveRecord> leave = Optional.ofNullable(leaves.get(member.instanceId()))
				.filter((record) -> record.incarnation().equals(member.incarnation()));
			Optional<ProgressRecord> learners = Optional
				.ofNullable(progressOf.get(ProgressRecord.keyOf(member.instanceId(), member.incarnation())));
			members.add(Member.of(member, leave, learners, Optional.ofNullable(drains.get(member.instanceId())), now));
		}
		List<Left> left = leaves.values().stream()
			.filter((leave) -> leave.ended().isPresent())
			.sorted(Comparator.comparing(LeaveRecord::instanceId))
			.map(Left::of)
			.toList();
		return new GroupReport(now.toString(), applicationId, plan, members, left);
	}

	void print(PrintWriter out) {
		out.println((this.plan != null) ? "plan of generation " + this.plan.generation() + " by " + this.plan.leader()
				+ " (" + this.plan.at() + "): " + this.plan.decision() : "no plan published yet");
		out.printf(ROW, "INSTANCE", "INCARNATION", "STATE", "ACTIVE", "LEARNING", "STANDBY");
		for (Member member : this.members) {
			out.printf(ROW, member.instanceId(), member.incarnation(), member.describeState(), member.active(),
					member.learning().stream().map(Learner::describe).toList(), member.standby());
		}
		if (!this.left.isEmpty()) {
			out.println("left:");
			for (Left leave : this.left) {
				out.printf("%-24s %-12s leave %s (%s, asked by %s): %s (%s), %d tasks moved cold%n", leave.instanceId(),
						leave.incarnation(), leave.leaveId(), leave.requestedAt(), leave.source(), leave.outcome(),
						leave.reason(), leave.tasksMovedCold());
			}
		}
	}

	/**
	 * The last plan.
	 * @param generation the group generation it was adopted in
	 * @param leader the member that planned it
	 * @param at when, on the leader's clock
	 * @param decision the leader's decision line
	 */
	record Plan(int generation, String leader, String at, String decision) {

		static Plan of(PlanEpoch epoch) {
			return new Plan(epoch.generation(), epoch.leader(), epoch.at().toString(), epoch.summary());
		}

	}

	/**
	 * A member of the last plan.
	 * @param instanceId the member
	 * @param incarnation its start
	 * @param mode {@code incremental} or {@code upgrading}
	 * @param state {@code STABLE}, {@code LEAVING} or {@code HAND_OVER <reason>}
	 * @param active the tasks it runs
	 * @param learning its learners
	 * @param standby its standby replicas
	 * @param drainEtaSeconds while it leaves: seconds until its drain ends (slowest learner or deadline), if known
	 * @param learnersReady while it leaves: how many learners of its tasks are ready
	 * @param tasksHandedOver while it leaves: how many of its tasks go to learners
	 */
	record Member(String instanceId, String incarnation, String mode, String state, List<String> active,
			List<Learner> learning, List<String> standby, Double drainEtaSeconds, Integer learnersReady,
			Integer tasksHandedOver) {

		static Member of(MemberPlan plan, Optional<LeaveRecord> leave, Optional<ProgressRecord> progress,
				Optional<DrainProgress> drain, Instant now) {
			String state = plan.handOver().map((reason) -> "HAND_OVER " + reason)
				.orElse((plan.leaving() || leave.filter(LeaveRecord::pending).isPresent()) ? "LEAVING" : "STABLE");
			List<Learner> learning = new ArrayList<>();
			plan.learning().values().forEach((planned) -> learning.add(Learner.of(planned.task().toString(),
					planned.lag(), planned.ready(), progress, now)));
			learning.sort(Comparator.comparing(Learner::task));
			return new Member(plan.instanceId(), plan.incarnation(), plan.mode().name().toLowerCase(Locale.ROOT), state,
					names(plan.active()), learning, names(plan.standby()),
					drain.flatMap(DrainProgress::eta).map((eta) -> secondsUntil(eta, now)).orElse(null),
					drain.map(DrainProgress::learnersReady).orElse(null), drain.map((d) -> d.tasks().size()).orElse(null));
		}

		String describeState() {
			if (this.tasksHandedOver == null) {
				return this.state;
			}
			return this.state + ", " + this.learnersReady + "/" + this.tasksHandedOver + " ready"
					+ ((this.drainEtaSeconds != null) ? ", ETA " + seconds(this.drainEtaSeconds) : "");
		}

	}

	/**
	 * A learner.
	 * @param task the task it learns
	 * @param lag records behind, as its member last published (else as planned)
	 * @param recordsPerSecond how fast the lag falls, 0 while unknown
	 * @param ready whether the task can move to it
	 * @param etaSeconds seconds until it is ready, if known
	 */
	record Learner(String task, long lag, double recordsPerSecond, boolean ready, Double etaSeconds) {

		static Learner of(String task, long plannedLag, boolean readyInPlan, Optional<ProgressRecord> progress,
				Instant now) {
			Optional<LearnerProgress> measured = progress
				.flatMap((record) -> record.learners().stream().filter((l) -> l.task().equals(task)).findFirst());
			if (measured.isEmpty()) {
				return new Learner(task, plannedLag, 0, readyInPlan, readyInPlan ? Double.valueOf(0.0) : null);
			}
			LearnerProgress learner = measured.get();
			boolean ready = readyInPlan || learner.ready();
			Double eta = ready ? Double.valueOf(0.0)
					: learner.eta().map((e) -> secondsUntil(progress.get().at().plus(e), now)).orElse(null);
			return new Learner(task, learner.lag(), learner.recordsPerSecond(), ready, eta);
		}

		String describe() {
			if (this.ready) {
				return this.task + " ready";
			}
			return String.format("%s lag %,d (%,.0f/s, ETA %s)", this.task, this.lag, this.recordsPerSecond,
					(this.etaSeconds != null) ? seconds(this.etaSeconds) : "?");
		}

	}

	/**
	 * A member that left lately.
	 * @param instanceId the member
	 * @param incarnation its start
	 * @param leaveId the leave
	 * @param requestedAt when it was asked, on the asker's clock
	 * @param source who asked
	 * @param outcome {@code drained}, {@code forced} or {@code left-without-learners}
	 * @param reason why
	 * @param tasksMovedCold stateful tasks that moved without a ready learner
	 */
	record Left(String instanceId, String incarnation, String leaveId, String requestedAt, String source,
			String outcome, String reason, int tasksMovedCold) {

		static Left of(LeaveRecord leave) {
			LeaveRecord.Ended ended = leave.ended().orElseThrow();
			return new Left(leave.instanceId(), leave.incarnation(), leave.leaveId(), leave.requestedAt().toString(),
					leave.source(), ended.outcome(), ended.reason(), ended.tasksMovedCold());
		}

	}

	private static List<String> names(Collection<TaskId> tasks) {
		return tasks.stream().map(TaskId::toString).toList();
	}

	private static double secondsUntil(Instant when, Instant now) {
		return Math.max(0, Duration.between(now, when).toMillis() / 1000.0);
	}

	private static String seconds(double seconds) {
		return String.format("%.0fs", Math.ceil(seconds));
	}

}
