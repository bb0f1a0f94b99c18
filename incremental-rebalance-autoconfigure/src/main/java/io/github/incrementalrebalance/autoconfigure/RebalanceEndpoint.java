package io.github.incrementalrebalance.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

import io.github.incrementalrebalance.control.DrainProgress;
import io.github.incrementalrebalance.control.LeaveCancel;
import io.github.incrementalrebalance.control.LeaveRecord;
import io.github.incrementalrebalance.control.PlanEpoch;
import io.github.incrementalrebalance.control.PlanRecord;
import io.github.incrementalrebalance.control.ProgressRecord.LearnerProgress;
import io.github.incrementalrebalance.control.ProgressRecord;
import io.github.incrementalrebalance.identity.MemberIdentity;
import io.github.incrementalrebalance.member.DrainOutcome;
import io.github.incrementalrebalance.member.LeaveOutcomeUnknownException;
import io.github.incrementalrebalance.member.LeaveRefusedException;
import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.member.TaskRole;
import io.github.incrementalrebalance.member.TaskState;
import io.github.incrementalrebalance.planner.HandOverReason;
import io.github.incrementalrebalance.planner.MemberPlan;
import io.github.incrementalrebalance.planner.RebalancingMode;
import org.apache.kafka.streams.processor.TaskId;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.convert.DurationStyle;

/**
 * The {@code rebalance} actuator endpoint: this instance's members (one per Kafka Streams application), their tasks,
 * their group's last plan, and the leave and its cancel. Read-only unless
 * {@code management.endpoint.rebalance.access=unrestricted}. Over HTTP, {@link RebalanceEndpointWebExtension} answers
 * a leave with its status code.
 */
@Endpoint(id = "rebalance", defaultAccess = Access.READ_ONLY)
public class RebalanceEndpoint {

	private static final Duration WAIT_STEP = Duration.ofMillis(100);

	/**
	 * The longest a leave request may hold its server thread waiting for the drain: a longer drain is followed with a
	 * read of the endpoint, or the command line's list.
	 */
	static final Duration MOST_WAIT = Duration.ofMinutes(5);

	/**
	 * How long a cancel waits for another member's answer unless asked otherwise: a member that stays answers in the
	 * rebalance it asks for, seconds on a healthy cluster. A cancel not answered in time is still written: the answer
	 * says so (202), it decides nothing.
	 */
	static final Duration CANCEL_ANSWER_WAIT = Duration.ofSeconds(10);

	private final MemberRuntimes runtimes;

	private final boolean leaveAllowed;

	/**
	 * @param runtimes this instance's members
	 * @param leaveAllowed whether the endpoint's access lets a leave and its cancel through, for the page to say so
	 * before anyone clicks
	 */
	public RebalanceEndpoint(MemberRuntimes runtimes, boolean leaveAllowed) {
		this.runtimes = runtimes;
		this.leaveAllowed = leaveAllowed;
	}

	@ReadOperation
	public Members members() {
		return new Members(this.runtimes.all().stream().map(RebalanceEndpoint::member).toList(), this.leaveAllowed);
	}

	@ReadOperation
	public Object section(@Selector Section section) {
		return switch (section) {
			case TASKS -> new Tasks(this.runtimes.all().stream()
				.map((runtime) -> new ApplicationTasks(runtime.applicationId(), runtime.identity().instanceId(),
						runtime.tasks().stream().map(TaskDescriptor::of).toList(),
						runtime.lagsAge().map(Duration::toMillis).orElse(null)))
				.toList());
			case GROUP -> new Groups(this.runtimes.all().stream().map(RebalanceEndpoint::group).toList());
		};
	}

	/**
	 * Drain every member of this instance, or ask one member of the group to leave.
	 * @param action {@code leave}
	 * @param timeout this leave's drain timeout ({@code 90s}, {@code 5m}, ISO-8601)
	 * @param wait how long to block until every member of this instance drained and closed, at most
	 * {@link #MOST_WAIT}
	 * @param force leave even when no other member of the group would stay
	 * @param instanceId the member to ask, on any instance of the group; this instance's members when absent
	 * @param applicationId the Kafka Streams application whose group is asked, when this instance runs several; all of
	 * them when absent
	 * @return the outcome, with the members' state or why the leave was refused
	 */
	@WriteOperation
	public LeaveResult leave(@Selector Action action, @Nullable String timeout, @Nullable String wait,
			@Nullable Boolean force, @Nullable String instanceId, @Nullable String applicationId) {
		Optional<Duration> bound;
		Optional<Duration> waitFor;
		String member;
		List<MemberRuntime> asked;
		try {
			asked = applications(applicationId);
			bound = duration("timeout", timeout);
			waitFor = duration("wait", wait);
			if (waitFor.filter((limit) -> limit.compareTo(MOST_WAIT) > 0).isPresent()) {
				throw new IllegalArgumentException("wait '" + wait + "' is longer than " + MOST_WAIT + ": wait at most "
						+ MOST_WAIT + ", then follow the drain with GET /actuator/rebalance or the command line's list");
			}
			member = instanceIdOf(instanceId);
		}
		catch (IllegalArgumentException ex) {
			return LeaveResult.refused(LeaveResult.Outcome.INVALID, "invalid", ex.getMessage());
		}
		boolean forced = Boolean.TRUE.equals(force);
		boolean started = false;
		try {
			if (member != null) {
				started = forEachApplicationOf(asked, member,
						(runtime) -> runtime.leaveOf(member, bound, "endpoint", forced));
			}
			else {
				for (MemberRuntime runtime : asked) {
					started |= runtime.leave(bound, "endpoint", forced);
				}
			}
		}
		catch (LeaveRefusedException ex) {
			return refused(ex);
		}
		catch (LeaveOutcomeUnknownException ex) {
			return unknown(ex);
		}
		waitFor.ifPresent((limit) -> awaitDrained(asked, limit));
		return new LeaveResult(started ? LeaveResult.Outcome.STARTED : LeaveResult.Outcome.ALREADY_LEAVING, members(),
				null, null);
	}

	/**
	 * Cancel a leave that has not finished. Another member answers on its own: it stays (a later plan no longer acts on
	 * its leave), or it had left or was handing over when the cancel came.
	 * @param action {@code leave}
	 * @param wait how long to wait for another member's answer ({@code 10s}, ISO-8601), at most {@link #MOST_WAIT};
	 * {@link #CANCEL_ANSWER_WAIT} when absent
	 * @param instanceId the member whose leave to cancel, on any instance of the group; this instance's members when
	 * absent
	 * @param applicationId the Kafka Streams application whose leave to cancel, when this instance runs several; all
	 * of them when absent
	 * @return the outcome, with the members' state
	 */
	@DeleteOperation
	public LeaveResult cancel(@Selector Action action, @Nullable String wait, @Nullable String instanceId,
			@Nullable String applicationId) {
		String member;
		Duration answerWait;
		List<MemberRuntime> asked;
		try {
			asked = applications(applicationId);
			member = instanceIdOf(instanceId);
			answerWait = duration("wait", wait).orElse(CANCEL_ANSWER_WAIT);
			if (answerWait.compareTo(MOST_WAIT) > 0) {
				throw new IllegalArgumentException("wait '" + wait + "' is longer than " + MOST_WAIT + ": wait at most "
						+ MOST_WAIT + ", then follow the member with GET /actuator/rebalance or the command line's list");
			}
		}
		catch (IllegalArgumentException ex) {
			return LeaveResult.refused(LeaveResult.Outcome.INVALID, "invalid", ex.getMessage());
		}
		List<LeaveCancel.Result> results = new ArrayList<>();
		try {
			for (MemberRuntime runtime : asked) {
				if (member != null) {
					runtime.cancelLeaveOf(member, answerWait).ifPresent(results::add);
				}
				else if (runtime.cancel()) {
					results.add(LeaveCancel.Result.of(LeaveCancel.Answer.CANCELLED));
				}
			}
		}
		catch (LeaveRefusedException ex) {
			return refused(ex);
		}
		catch (LeaveOutcomeUnknownException ex) {
			return unknown(ex);
		}
		if (results.stream().anyMatch((result) -> result.answer() == LeaveCancel.Answer.CANCELLED)) {
			return new LeaveResult(LeaveResult.Outcome.CANCELLED, members(), null, null);
		}
		Optional<LeaveCancel.Result> leftFirst = results.stream()
			.filter((result) -> result.answer() == LeaveCancel.Answer.LEFT_FIRST)
			.findFirst();
		if (leftFirst.isPresent()) {
			return LeaveResult.refused(LeaveResult.Outcome.LEFT_FIRST, "left-first", member + " had left when the "
					+ "cancel came: " + leftFirst.get().ended().map(Object::toString).orElse("its leave ended"));
		}
		if (!results.isEmpty()) {
			return new LeaveResult(LeaveResult.Outcome.CANCEL_UNANSWERED, members(), "unanswered", "the cancel is "
					+ "written; " + member + " has not answered within " + answerWait + ": it stays if it reads the "
					+ "cancel before it hands over (follow it with GET /actuator/rebalance/group)");
		}
		return LeaveResult.refused(LeaveResult.Outcome.NOTHING_TO_CANCEL, "nothing-to-cancel",
				(member != null) ? member + " is not leaving" : "no member of this instance is leaving");
	}

	/**
	 * The applications a request names: one by its id, or all of this instance's.
	 */
	private List<MemberRuntime> applications(@Nullable String applicationId) {
		List<MemberRuntime> all = this.runtimes.all();
		if (applicationId == null) {
			return all;
		}
		List<MemberRuntime> named = all.stream().filter((runtime) -> runtime.applicationId().equals(applicationId))
			.toList();
		if (named.isEmpty()) {
			throw new IllegalArgumentException("applicationId '" + applicationId + "' is not an application of this "
					+ "instance: use one of " + all.stream().map(MemberRuntime::applicationId).toList()
					+ ", or none for all of them");
		}
		return named;
	}

	/**
	 * Ask each application's group that has the member; refused as unknown only when none has it.
	 */
	private static boolean forEachApplicationOf(List<MemberRuntime> runtimes, String instanceId,
			Predicate<MemberRuntime> ask) {
		boolean asked = false;
		LeaveRefusedException unknown = null;
		for (MemberRuntime runtime : runtimes) {
			try {
				asked |= ask.test(runtime);
			}
			catch (LeaveRefusedException ex) {
				if (ex.reason() != LeaveRefusedException.Reason.UNKNOWN_INSTANCE) {
					throw ex;
				}
				unknown = ex;
			}
		}
		if (!asked && unknown != null && runtimes.stream()
			.noneMatch((runtime) -> runtime.controlView().plans().stream()
				.anyMatch((plan) -> plan.instanceId().equals(instanceId)))) {
			throw unknown;
		}
		return asked;
	}

	/**
	 * The instance id a request names: the id itself, or the longer name (a pod's) it was shortened from.
	 */
	private static @Nullable String instanceIdOf(@Nullable String name) {
		return (name != null) ? MemberIdentity.instanceIdOf(name) : null;
	}

	private static LeaveResult refused(LeaveRefusedException ex) {
		return LeaveResult.refused((ex.reason() == LeaveRefusedException.Reason.CONTROL_TOPIC_UNAVAILABLE)
				? LeaveResult.Outcome.UNAVAILABLE : LeaveResult.Outcome.REFUSED,
				ex.reason().name().toLowerCase(Locale.ROOT).replace('_', '-'), ex.getMessage());
	}

	private static LeaveResult unknown(LeaveOutcomeUnknownException ex) {
		return LeaveResult.refused(LeaveResult.Outcome.UNKNOWN, "unknown", ex.getMessage());
	}

	private static void awaitDrained(List<MemberRuntime> runtimes, Duration limit) {
		long until = System.nanoTime() + limit.toNanos();
		while (System.nanoTime() - until < 0 && runtimes.stream()
			.anyMatch((runtime) -> runtime.state() != MemberState.STABLE && runtime.state() != MemberState.CLOSED)) {
			LockSupport.parkNanos(WAIT_STEP.toNanos());
		}
	}

	private static Optional<Duration> duration(String field, @Nullable String value) {
		if (value == null || value.isBlank()) {
			return Optional.empty();
		}
		try {
			Duration duration = DurationStyle.detectAndParse(value);
			if (duration.isNegative()) {
				throw new IllegalArgumentException(field + " '" + value + "' is negative: use 0 or more");
			}
			return Optional.of(duration);
		}
		catch (IllegalArgumentException | DateTimeParseException ex) {
			if (ex.getMessage() != null && ex.getMessage().startsWith(field + " '")) {
				throw ex;
			}
			throw new IllegalArgumentException(field + " '" + value + "' is not a duration: use 90s, 5m, 1h, "
					+ "milliseconds or ISO-8601 (PT5M)");
		}
	}

	private static Member member(MemberRuntime runtime) {
		Map<TaskRole, Long> counts = new EnumMap<>(TaskRole.class);
		runtime.tasks().forEach((task) -> counts.merge(task.role(), 1L, Long::sum));
		return new Member(runtime.applicationId(), runtime.identity().instanceId(), runtime.identity().incarnation(),
				runtime.identity().mode().name().toLowerCase(Locale.ROOT), runtime.state(),
				runtime.deadline().orElse(null), runtime.leaveWaiting().orElse(null), runtime.drainStalled().orElse(null),
				runtime.drainOutcome().map(LeaveOutcome::of).orElse(null), counts, runtime.hasDuplicateInstanceId());
	}

	private static Group group(MemberRuntime runtime) {
		Optional<PlanEpoch> epoch = runtime.controlView().planEpoch();
		List<LeaveRecord> left = runtime.controlView().leaveRecords().values().stream()
			.filter((leave) -> leave.ended().isPresent())
			.sorted(Comparator.comparing(LeaveRecord::instanceId))
			.toList();
		List<PlanRecord> plans = runtime.controlView().plans();
		List<PlanView> members = plans.stream().map(PlanView::of).toList();
		List<ProgressRecord> progress = runtime.controlView().progress();
		List<LearnerView> learners = progress.stream()
			.flatMap((record) -> record.learners().stream().map((learner) -> LearnerView.of(record, learner)))
			.toList();
		List<DrainView> drains = DrainProgress.of(plans, progress, runtime.controlView().leaveRecords(), Instant.now())
			.stream()
			.map(DrainView::of)
			.toList();
		return new Group(runtime.applicationId(), epoch.map(PlanEpoch::leader).orElse(null),
				epoch.map(PlanEpoch::generation).orElse(null), epoch.map(PlanEpoch::at).orElse(null),
				epoch.map(PlanEpoch::summary).orElse(null), members, learners, drains, left);
	}

	/**
	 * The read sections.
	 */
	public enum Section {

		TASKS, GROUP

	}

	/**
	 * The write action.
	 */
	public enum Action {

		LEAVE

	}

	/**
	 * This instance's members.
	 * @param applications one member per Kafka Streams application
	 * @param leaveAllowed whether this endpoint takes a leave and its cancel
	 * ({@code management.endpoint.rebalance.access=unrestricted})
	 */
	public record Members(List<Member> applications, boolean leaveAllowed) implements OperationResponseBody {
	}

	/**
	 * A member of this instance.
	 * @param applicationId its Kafka Streams application
	 * @param instanceId its instance id
	 * @param incarnation this start of it
	 * @param mode incremental or upgrading
	 * @param state where it is in leaving
	 * @param deadline when it leaves even if its learners are not ready, on this instance's clock
	 * @param waiting why its leave waits for the group longer than its acknowledgement timeout (it keeps asking)
	 * @param stalled why its drain gets nowhere: its learners have not come closer to ready for the stall timeout
	 * @param outcome how its leave ended, once it left
	 * @param tasks its tasks per role
	 * @param duplicateInstanceId whether another live member has its id
	 */
	public record Member(String applicationId, String instanceId, String incarnation, String mode, MemberState state,
			@Nullable Instant deadline, @Nullable String waiting, @Nullable String stalled, @Nullable LeaveOutcome outcome,
			Map<TaskRole, Long> tasks, boolean duplicateInstanceId) {
	}

	/**
	 * How a leave ended.
	 * @param outcome {@code drained}, {@code forced} or {@code left-without-learners}
	 * @param reason why, e.g. {@code learners-ready}, {@code deadline-passed}, {@code no-learner-plan}
	 * @param tasksMovedCold stateful tasks that moved without a ready learner
	 * @param description one line for people
	 */
	public record LeaveOutcome(String outcome, String reason, int tasksMovedCold, String description) {

		static LeaveOutcome of(DrainOutcome outcome) {
			return new LeaveOutcome(outcome.kind().word(), outcome.reason().word(), outcome.tasksMovedCold(),
					outcome.describe());
		}

	}

	public record Tasks(List<ApplicationTasks> applications) implements OperationResponseBody {
	}

	/**
	 * The tasks of one member of this instance.
	 * @param applicationId its application
	 * @param instanceId its instance id
	 * @param tasks its tasks
	 * @param lagsAgeMillis how old the lags of its learners and standbys are (the member reads them on its own
	 * thread, never on the endpoint's); null before the first read
	 */
	public record ApplicationTasks(String applicationId, String instanceId, List<TaskDescriptor> tasks,
			@Nullable Long lagsAgeMillis) {
	}

	public record TaskDescriptor(String id, TaskRole state, boolean stateful, List<String> stores,
			@Nullable Long lag, @Nullable Boolean ready) {

		static TaskDescriptor of(TaskState task) {
			boolean learner = task.role() == TaskRole.LEARNING;
			return new TaskDescriptor(task.task().toString(), task.role(), task.stateful(), task.stores(),
					task.lag().isPresent() ? task.lag().getAsLong() : null, learner ? task.ready() : null);
		}

	}

	public record Groups(List<Group> applications) implements OperationResponseBody {
	}

	/**
	 * The group as the last plan shows it.
	 *
	 * @param applicationId the application
	 * @param leader who published the plan
	 * @param generation the group generation the plan was adopted in
	 * @param planAt when, on the leader's clock
	 * @param decision the leader's decision line
	 * @param members the plan of each member start
	 * @param learners every learner of the group, as its member last published it
	 * @param drains the leaving members' hand-overs, with when each will end
	 * @param left members that left lately, with how their leave ended
	 */
	public record Group(String applicationId, @Nullable String leader, @Nullable Integer generation,
			@Nullable Instant planAt, @Nullable String decision, List<PlanView> members, List<LearnerView> learners,
			List<DrainView> drains, List<LeaveRecord> left) {
	}

	/**
	 * The plan of one member start.
	 * @param instanceId the member
	 * @param incarnation its start
	 * @param generation the group generation the plan was adopted in
	 * @param active the tasks it runs
	 * @param learning its learners: task to lag when planned
	 * @param ready its learners that were ready when planned
	 * @param beingLearned the tasks it runs while their learners warm up elsewhere
	 * @param standby its standby replicas
	 * @param leaving whether it asked to leave
	 * @param leaveId the leave the plan acts on
	 * @param handOver why it should leave the group now, if it should
	 * @param mode the rebalancing mode it runs
	 */
	public record PlanView(String instanceId, String incarnation, int generation, List<String> active,
			Map<String, Long> learning, List<String> ready, List<String> beingLearned, List<String> standby,
			boolean leaving, @Nullable String leaveId, @Nullable HandOverReason handOver, RebalancingMode mode) {

		static PlanView of(PlanRecord record) {
			MemberPlan plan = record.plan();
			Map<String, Long> learning = new TreeMap<>();
			plan.learning().values().forEach((learner) -> learning.put(learner.task().toString(), learner.lag()));
			return new PlanView(plan.instanceId(), plan.incarnation(), record.generation(), names(plan.active()),
					learning, names(plan.readyLearners()), names(plan.beingLearned()), names(plan.standby()),
					plan.leaving(), plan.leaveId().orElse(null), plan.handOver().orElse(null), plan.mode());
		}

		private static List<String> names(Collection<TaskId> tasks) {
			return tasks.stream().map(TaskId::toString).toList();
		}

	}

	/**
	 * A learner of the group.
	 * @param instanceId the member it runs on
	 * @param task the task it learns
	 * @param lag records its stores are behind
	 * @param recordsPerSecond how fast the lag falls
	 * @param ready whether the task can move to it
	 * @param measuredAt when its member measured it, on that member's clock
	 * @param etaSeconds seconds from {@code measuredAt} until it is ready, while known
	 * @param readyAt {@code measuredAt} plus the ETA, while known
	 */
	public record LearnerView(String instanceId, String task, long lag, double recordsPerSecond, boolean ready,
			Instant measuredAt, @Nullable Double etaSeconds, @Nullable Instant readyAt) {

		static LearnerView of(ProgressRecord record, LearnerProgress learner) {
			return new LearnerView(record.instanceId(), learner.task(), learner.lag(), learner.recordsPerSecond(),
					learner.ready(), record.at(), learner.eta().map((eta) -> eta.toMillis() / 1000.0).orElse(null),
					learner.eta().map(record.at()::plus).orElse(null));
		}

	}

	/**
	 * A leaving member's hand-over.
	 * @param instanceId the member
	 * @param tasks the tasks it hands over to learners
	 * @param learnersReady how many of those learners are ready
	 * @param slowestTask the task whose learner will be ready last, while every learner has an ETA
	 * @param readyAt when that learner will be ready
	 * @param deadline when the member leaves even if its learners are not ready
	 * @param eta when the drain will end: the earlier of the two
	 */
	public record DrainView(String instanceId, List<String> tasks, int learnersReady, @Nullable String slowestTask,
			@Nullable Instant readyAt, @Nullable Instant deadline, @Nullable Instant eta) {

		static DrainView of(DrainProgress drain) {
			return new DrainView(drain.instanceId(), drain.tasks(), drain.learnersReady(),
					drain.slowestTask().orElse(null), drain.readyAt().orElse(null), drain.deadline().orElse(null),
					drain.eta().orElse(null));
		}

	}

	/**
	 * What a leave or its cancel did: the members' state, or the reason it was refused.
	 * @param outcome what happened
	 * @param members the members' state, unless refused
	 * @param reason why it was refused, as a word ({@code invalid}, {@code not-running},
	 * {@code duplicate-instance-id}, {@code last-stable-member}, {@code control-topic-unavailable},
	 * {@code nothing-to-cancel}, {@code left-first}), or {@code unanswered} for a cancel the member has not answered
	 * @param error why it was refused, for people
	 */
	public record LeaveResult(Outcome outcome, @Nullable Members members, @Nullable String reason,
			@Nullable String error) implements OperationResponseBody {

		static LeaveResult refused(Outcome outcome, String reason, String error) {
			return new LeaveResult(outcome, null, reason, error);
		}

		/**
		 * What a leave or its cancel did.
		 */
		public enum Outcome {

			/** A leave started. */
			STARTED,
			/** Every member was leaving or had left already. */
			ALREADY_LEAVING,
			/** A field of the request is not valid. */
			INVALID,
			/** Kafka Streams does not run, the instance id is used twice, or no other member would stay. */
			REFUSED,
			/** The control topic cannot be written. */
			UNAVAILABLE,
			/** Whether the request reached the control topic is unknown: it may still take effect. */
			UNKNOWN,
			/** A leave was cancelled: the member stays. */
			CANCELLED,
			/** The cancel is written, and the member has not answered within the wait. */
			CANCEL_UNANSWERED,
			/** The member had left, or was handing over, when the cancel came. */
			LEFT_FIRST,
			/** No member was leaving. */
			NOTHING_TO_CANCEL

		}

	}

}
