package io.github.incrementalrebalance.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;

import io.github.incrementalrebalance.control.ControlRecord;
import io.github.incrementalrebalance.control.DrainProgress;
import io.github.incrementalrebalance.control.LeaveRecord;
import io.github.incrementalrebalance.member.DrainOutcome;
import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.member.RebalanceCause;
import io.github.incrementalrebalance.member.TaskRole;
import io.github.incrementalrebalance.member.TaskState;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Meters of the members, tagged by application: tasks per state, each learner's lag and the largest, the drain's
 * ETA, rebalances this member enforced, drain durations, how the other members' leaves ended, assignor fallbacks, and
 * each problem health reports.
 */
public class RebalanceMetrics implements MeterBinder {

	private final MemberRuntimes runtimes;

	public RebalanceMetrics(MemberRuntimes runtimes) {
		this.runtimes = runtimes;
	}

	/**
	 * Binds the meters of every member, and of each member whose factory bean is created later.
	 */
	@Override
	public void bindTo(MeterRegistry registry) {
		this.runtimes.forEachNowAndLater((runtime) -> bind(registry, runtime));
	}

	private static void bind(MeterRegistry registry, MemberRuntime runtime) {
		// the member's own instance id: a pod's, as stable as the scrape target, and what the endpoint and logs name
		Tags tags = Tags.of("application.id", runtime.applicationId(), "instance.id",
				runtime.identity().instanceId());
		for (MemberState state : MemberState.values()) {
			Gauge.builder("incremental.rebalance.member.state", runtime, (member) -> (member.state() == state) ? 1 : 0)
				.description("1 in the state this instance's member is in, 0 in the others: stable, leaving, "
						+ "drained, forced, left-without-learners, closed (out of its group, Kafka Streams closed: a "
						+ "pod that stays up so holds its place, and a disruption budget's slot, until it is removed)")
				.tags(tags.and("state", state.name().toLowerCase(Locale.ROOT).replace('_', '-')))
				.register(registry);
		}
		for (TaskRole role : TaskRole.values()) {
			Gauge.builder("incremental.rebalance.tasks", runtime,
					(member) -> member.tasks().stream().filter((task) -> task.role() == role).count())
				.description("Tasks of this instance by state")
				.tags(tags.and("state", role.name().toLowerCase(Locale.ROOT)))
				.register(registry);
		}
		Gauge.builder("incremental.rebalance.learner.lag.max", runtime,
				(member) -> member.tasks().stream()
					.filter((task) -> task.role() == TaskRole.LEARNING && task.lag().isPresent())
					.mapToLong((TaskState task) -> task.lag().getAsLong())
					.max()
					.orElse(0))
			.description("Largest lag of this instance's learners")
			.tags(tags)
			.register(registry);
		FunctionCounter.builder("incremental.rebalance.enforced", runtime,
				(member) -> member.rebalanceTrigger().map((trigger) -> (double) trigger.enforcedCount()).orElse(0.0))
			.description("Rebalances this instance enforced")
			.tags(tags)
			.register(registry);
		for (RebalanceCause cause : RebalanceCause.values()) {
			FunctionCounter.builder("incremental.rebalance.rounds", runtime,
					(member) -> member.rebalanceTrigger().map((trigger) -> (double) trigger.rounds(cause)).orElse(0.0))
				.description("Rebalances this instance started or joined by itself, by cause: leave, cancel, "
						+ "learners-ready, join (a new member, a round after a revoke, a follow-up of Kafka Streams), "
						+ "follow (another member asked), application")
				.tags(tags.and("cause", cause.word()))
				.register(registry);
		}
		FunctionCounter.builder("incremental.rebalance.assignments", runtime,
				(member) -> member.assignorStatus().assignments())
			.description("Assignments this instance led that planned")
			.tags(tags)
			.register(registry);
		FunctionCounter.builder("incremental.rebalance.assignments.unchanged", runtime,
				(member) -> member.assignorStatus().unchangedAssignments())
			.description("Assignments this instance led that gave every member the tasks it had: a rebalance that "
					+ "moved nothing; the rounds counter of the member that asked says why it was asked")
			.tags(tags)
			.register(registry);
		MultiGauge learnerLags = MultiGauge.builder("incremental.rebalance.learner.lag")
			.description("Lag of each learner of this instance, by task: records its stores are behind")
			.tags(tags)
			.register(registry);
		runtime.addProgressListener((learners) -> learnerLags.register(learners.stream()
			.map((learner) -> MultiGauge.Row.of(Tags.of("task", learner.task()), learner.lag()))
			.toList(), true));
		Gauge.builder("incremental.rebalance.drain.eta", runtime, RebalanceMetrics::secondsUntilDrained)
			.description("While this instance leaves: seconds until its slowest learner is ready (or its deadline, "
					+ "if sooner), from the group's progress records; NaN when not leaving or not known yet")
			.baseUnit("seconds")
			.tags(tags)
			.register(registry);
		Gauge.builder("incremental.rebalance.drain.stalled", runtime,
				(member) -> member.drainStalled().isPresent() ? 1 : 0)
			.description("1 while this instance's drain gets nowhere: its learners have not come closer to ready "
					+ "for the drain stall timeout (health's drainStalled says which and why); 0 otherwise")
			.tags(tags)
			.register(registry);
		for (MemberProblem problem : MemberProblem.values()) {
			Gauge.builder("incremental.rebalance.problem", runtime,
					(member) -> problem.of(member).isPresent() ? 1 : 0)
				.description("1 while this instance has the problem its tag names and health's 'problem' detail "
						+ "says why (control-topic, duplicate-instance-id, assignor-fallback): it still processes, "
						+ "but a leave would not hand its tasks to warm learners; 0 otherwise")
				.tags(tags.and("problem", problem.word()))
				.register(registry);
		}
		runtime.addStateListener(new DrainTimer(registry, tags, runtime));
		runtime.controlView().addListener(new LeaveEnds(registry, tags, runtime));
		FunctionCounter.builder("incremental.rebalance.assignor.fallbacks", runtime,
				(member) -> member.assignorStatus().fallbacks())
			.description("Assignments this instance led with Kafka's sticky assignor after planning failed")
			.tags(tags)
			.register(registry);
		FunctionCounter.builder("incremental.rebalance.assignor.weighed.by.count", runtime,
				(member) -> member.assignorStatus().weighedByCount())
			.description("Assignments this instance led with task.weight=state-size that weighed every task one, "
					+ "because the changelog sizes could not be read")
			.tags(tags)
			.register(registry);
	}

	private static double secondsUntilDrained(MemberRuntime runtime) {
		if (runtime.state() != MemberState.LEAVING) {
			return Double.NaN;
		}
		return runtime.drainProgress()
			.flatMap(DrainProgress::eta)
			.map((eta) -> Math.max(0, Duration.between(Instant.now(), eta).toMillis() / 1000.0))
			.orElse(Double.NaN);
	}

	/**
	 * Counts how the other members' leaves ended, from the end each leaver writes into its leave record as it closes:
	 * the leaver's own meters go with its process, these stay with the members that stay, so a scrape after a pod is
	 * gone still shows how it left. Every member that stays counts each end it reads (a query takes the largest count
	 * of the members, not their sum). The leaver is not a tag: a Deployment's pods have new names at every rollout,
	 * and each would add series to every member that stays, for as long as it runs; which member left how is in the
	 * leave records ({@code list}, the live page) and the leaver's log. Told on the control topic reader's thread, of
	 * records written after it started.
	 */
	private static final class LeaveEnds implements Consumer<ControlRecord> {

		private final MeterRegistry registry;

		private final Tags tags;

		private final MemberRuntime runtime;

		LeaveEnds(MeterRegistry registry, Tags tags, MemberRuntime runtime) {
			this.registry = registry;
			this.tags = tags;
			this.runtime = runtime;
			// every end this version writes counts from 0: a counter that appears at 1 is no increase to Prometheus,
			// and an alert on increase() would miss the first forced leave
			for (DrainOutcome.Reason reason : DrainOutcome.Reason.values()) {
				leaves(reason.kind().word(), reason.word());
			}
			leaves(LeaveRecord.Ended.KILLED, LeaveRecord.Ended.NO_END_RECORDED);
			movedCold();
		}

		private Counter leaves(String outcome, String reason) {
			return Counter.builder("incremental.rebalance.leaves")
				.description("Leaves of other members of the group that ended, by outcome and reason, read from the "
						+ "control topic by this member, which stayed")
				.tags(this.tags.and("outcome", outcome, "reason", reason))
				.register(this.registry);
		}

		private Counter movedCold() {
			return Counter.builder("incremental.rebalance.leaves.tasks.moved.cold")
				.description("Tasks those leaves moved without a ready learner")
				.tags(this.tags)
				.register(this.registry);
		}

		@Override
		public void accept(ControlRecord record) {
			if (!(record instanceof LeaveRecord leave) || leave.ended().isEmpty()
					|| leave.incarnation().equals(this.runtime.identity().incarnation())) {
				return;
			}
			LeaveRecord.Ended ended = leave.ended().get();
			leaves(ended.outcome(), ended.reason()).increment();
			movedCold().increment(ended.tasksMovedCold());
		}

	}

	/**
	 * Times each leave from its request to its end, tagged with how it ended: {@code outcome} is {@code drained}
	 * (handed over to ready learners), {@code forced} or {@code left-without-learners}, {@code reason} says why. A
	 * cancelled leave is not timed.
	 */
	private static final class DrainTimer implements Consumer<MemberState> {

		private final MeterRegistry registry;

		private final Tags tags;

		private final MemberRuntime runtime;

		private volatile long leavingSince = -1;

		DrainTimer(MeterRegistry registry, Tags tags, MemberRuntime runtime) {
			this.registry = registry;
			this.tags = tags;
			this.runtime = runtime;
		}

		@Override
		public void accept(MemberState state) {
			switch (state) {
				case LEAVING -> this.leavingSince = System.nanoTime();
				case STABLE -> this.leavingSince = -1;
				case DRAINED, FORCED, LEFT_WITHOUT_LEARNERS -> {
					long since = this.leavingSince;
					Optional<DrainOutcome> outcome = this.runtime.drainOutcome();
					if (since >= 0 && outcome.isPresent()) {
						Timer.builder("incremental.rebalance.drain")
							.description("Time from a leave to its end: handed over to ready learners (drained), "
									+ "forced at the deadline, or left without learners")
							.tags(this.tags.and("outcome", outcome.get().kind().word(), "reason",
									outcome.get().reason().word()))
							.register(this.registry)
							.record(Duration.ofNanos(System.nanoTime() - since));
					}
				}
				default -> {
				}
			}
		}

	}

}
