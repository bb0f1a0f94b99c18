package io.github.incrementalrebalance.assignor;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import io.github.incrementalrebalance.config.Backoff;
import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.config.TaskWeight;
import io.github.incrementalrebalance.planner.Group;
import io.github.incrementalrebalance.planner.LearnerPlanner;
import io.github.incrementalrebalance.planner.MemberPlan;
import io.github.incrementalrebalance.planner.Plan;
import io.github.incrementalrebalance.planner.PlannerSettings;
import io.github.incrementalrebalance.planner.StartId;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment.AssignedTask;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.TaskAssignmentUtils;
import org.apache.kafka.streams.processor.assignment.TaskAssignor;
import org.apache.kafka.streams.processor.assignment.assignors.StickyTaskAssignor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The learner assignor, set with {@code task.assignor.class}. Kafka makes one per rebalance on the group leader and
 * calls {@link #configure(Map)} with the Streams config, then {@link #assign(ApplicationState)}: it reads the group
 * and the control view, plans with the {@link LearnerPlanner}, checks the result and logs one line explaining it.
 * <p>
 * It never throws: Kafka turns an exception here into the death of every stream thread in the group. On any error it
 * falls back to Kafka's public {@link StickyTaskAssignor} and asks for a retry after a growing back-off.
 */
public final class LearnerTaskAssignor implements TaskAssignor {

	/** Streams config key of an optional {@link Clock}, for simulations. */
	public static final String CLOCK_CONFIG = "incremental.rebalance.clock";

	private static final Logger logger = LoggerFactory.getLogger(LearnerTaskAssignor.class);

	/** How far the learner probe backs off while rounds change nothing: to eight times its interval. */
	static final int LEARNER_PROBE_GROWTH = 8;

	private LearnerPlanner planner = new LearnerPlanner();

	private RuntimeException policyError;

	private LearnerConfig config = new LearnerConfig(Map.of());

	private ControlView controlView = List::of;

	private ChangelogSizes changelogSizes;

	private PlanListener listener = (plan, error) -> {
	};

	private PreviousPlan previousPlan = List::of;

	private AssignorStatus status = new AssignorStatus();

	private Clock clock = Clock.systemUTC();

	private Plan lastPlan;

	@Override
	public void configure(Map<String, ?> configs) {
		this.config = new LearnerConfig(configs);
		try {
			this.planner = new LearnerPlanner(this.config.placementPolicy());
		}
		catch (RuntimeException ex) {
			// Kafka kills every stream thread of the group when configure throws: plan with Kafka's assignor instead
			this.planner = null;
			this.policyError = ex;
		}
		if (configs.get(ControlView.CONFIG) instanceof ControlView view) {
			this.controlView = view;
		}
		if (configs.get(ChangelogSizes.CONFIG) instanceof ChangelogSizes sizes) {
			this.changelogSizes = sizes;
		}
		if (configs.get(PlanListener.CONFIG) instanceof PlanListener planListener) {
			this.listener = planListener;
		}
		if (configs.get(PreviousPlan.CONFIG) instanceof PreviousPlan previous) {
			this.previousPlan = previous;
		}
		if (configs.get(AssignorStatus.CONFIG) instanceof AssignorStatus shared) {
			this.status = shared;
		}
		if (configs.get(CLOCK_CONFIG) instanceof Clock configured) {
			this.clock = configured;
		}
	}

	@Override
	public TaskAssignment assign(ApplicationState applicationState) {
		Instant now = this.clock.instant();
		try {
			if (this.planner == null) {
				throw new IllegalStateException("the placement policy could not be made: " + this.policyError.getMessage(),
						this.policyError);
			}
			this.controlView.unavailable().ifPresent((reason) -> {
				throw new IllegalStateException(reason + ": a leave request could be missed");
			});
			boolean racks = racks(applicationState.assignmentConfigs(), applicationState);
			PlannerSettings settings = settings(applicationState.assignmentConfigs(), racks);
			Map<TaskId, Long> sizes = (this.config.taskWeight() == TaskWeight.STATE_SIZE)
					? changelogRecords(applicationState) : Map.of();
			Group group = GroupReader.read(applicationState, settings, this.controlView.leaveRequests(), now, racks,
					sizes, this.previousPlan.members())
				.withRetry(retry(settings))
				.withLearnerProbe(learnerProbe(settings))
				.withHandOversHeld(handOversHeld());
			Plan plan = this.planner.plan(group);
			if (!plan.outsidePolicy().isEmpty()) {
				logger.warn("The placement policy lets no member run {}: placed anyway", plan.outsidePolicy());
			}
			TaskAssignment assignment = AssignmentWriter.write(plan);
			check(applicationState, assignment);
			boolean held = group.handOversHeld().isPresent()
					&& plan.members().values().stream().anyMatch(MemberPlan::leaving);
			this.status.planned(changes(this.previousPlan.members(), plan), plan.unknownOffsets() || held);
			this.lastPlan = plan;
			logger.info("Learner assignment: {}", plan.explain(now));
			return assignment;
		}
		catch (RuntimeException ex) {
			return fallback(applicationState, now, ex);
		}
	}

	/**
	 * Whether this round hands no leaving member over: its view of the leave requests may be out of date, and a leave
	 * cancelled meanwhile would otherwise end in a member leaving for nothing.
	 */
	private Optional<String> handOversHeld() {
		Optional<String> outOfDate = this.controlView.outOfDate();
		if (outOfDate.isPresent() && !this.controlView.leaveRequests().isEmpty()) {
			logger.warn("{}: no leaving member is handed over this round, its tasks stay until the control topic is "
					+ "read again", outOfDate.get());
		}
		return outOfDate;
	}

	/**
	 * When to plan again should this round not do its work (end offsets unknown, hand-overs held): every round asked
	 * for rebalances the whole group, so while rounds in a row cannot the retry doubles from 5 s up to the learner
	 * probe interval.
	 */
	private Duration retry(PlannerSettings settings) {
		Duration longest = settings.learnerProbeInterval();
		Backoff retry = Backoff.doubling(Group.FIRST_RETRY,
				(longest.compareTo(Group.FIRST_RETRY) > 0) ? longest : Group.FIRST_RETRY);
		return retry.pauseAfter(this.status.incompleteInARow() + 1);
	}

	/**
	 * When to plan again while learners exist: the probe interval, doubling while rounds in a row gave every member the
	 * tasks it had, up to eight times it. The probe is a safety net (a learner's member asks for the round that moves
	 * it), and each round rebalances the whole group: a drain of ten minutes probed twenty times.
	 */
	private Duration learnerProbe(PlannerSettings settings) {
		Duration probe = settings.learnerProbeInterval();
		return Backoff.doubling(probe, probe.multipliedBy(LEARNER_PROBE_GROWTH))
			.pauseAfter(this.status.unchangedInARow() + 1);
	}

	@Override
	public void onAssignmentComputed(GroupAssignment assignment, GroupSubscription subscription,
			AssignmentError error) {
		try {
			if (this.lastPlan == null) {
				this.listener.onNoPlan();
			}
			else {
				this.listener.onPlan(this.lastPlan, error);
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Plan listener failed; the assignment stands", ex);
		}
	}

	private PlannerSettings settings(AssignmentConfigs kafka, boolean racks) {
		return new PlannerSettings(kafka.acceptableRecoveryLag(), kafka.maxWarmupReplicas(),
				kafka.numStandbyReplicas(), this.config.balancingFactor(), this.config.learnerRebalance(),
				this.config.learnerProbeInterval(),
				kafka.rackAwareNonOverlapCost().orElse((int) PlannerSettings.DEFAULT_MOVE_COST),
				racks && StreamsConfig.RACK_AWARE_ASSIGNMENT_STRATEGY_BALANCE_SUBTOPOLOGY
					.equals(kafka.rackAwareAssignmentStrategy()),
				this.config.drainRestoreCap());
	}

	/**
	 * The records in each stateful task's changelogs; none, with a WARN and a note in the status, when they cannot be
	 * read: the round then weighs every task one, like Kafka, rather than failing the assignment.
	 */
	private Map<TaskId, Long> changelogRecords(ApplicationState state) {
		if (this.changelogSizes == null) {
			return weighedByCount("no changelog size reader in the Kafka Streams config (configure Kafka Streams with "
					+ "MemberRuntime.configure, as the Spring Boot starter does)");
		}
		try {
			Map<TaskId, Long> sizes = GroupReader.changelogRecords(state, this.changelogSizes);
			this.status.weighedByStateSize();
			return sizes;
		}
		catch (RuntimeException ex) {
			return weighedByCount(String.valueOf(ex.getMessage()));
		}
	}

	private Map<TaskId, Long> weighedByCount(String reason) {
		this.status.weighedByCount(reason);
		logger.warn("{}=state-size is not applied this round: {} (every task weighs one)",
				LearnerConfig.TASK_WEIGHT_CONFIG, reason);
		return Map.of();
	}

	/**
	 * Whether to read racks this round: rack-aware assignment is on and every member and partition has its rack.
	 */
	/**
	 * Whether a plan gives any member start other tasks than the plan of the generation before did.
	 */
	private static boolean changes(List<MemberPlan> before, Plan plan) {
		return !tasksByStart(before).equals(tasksByStart(plan.members().values()));
	}

	private static Map<StartId, List<Set<TaskId>>> tasksByStart(Collection<MemberPlan> plans) {
		return plans.stream().collect(Collectors.toMap((member) -> new StartId(member.instanceId(), member.incarnation()),
				(member) -> List.of(member.active(), member.standbyTasks()), (first, second) -> first));
	}

	private static boolean racks(AssignmentConfigs kafka, ApplicationState state) {
		if (StreamsConfig.RACK_AWARE_ASSIGNMENT_STRATEGY_NONE.equals(kafka.rackAwareAssignmentStrategy())) {
			return false;
		}
		Optional<String> missing = GroupReader.missingRacks(state);
		missing.ifPresent((reason) -> logger.warn("rack.aware.assignment.strategy={} is not applied this round: {} "
				+ "(tasks are placed by warmth and load)", kafka.rackAwareAssignmentStrategy(), reason));
		return missing.isEmpty();
	}

	/**
	 * Kafka checks ids, duplicates and standbys, but not coverage: a task left out is silently not processed.
	 */
	private static void check(ApplicationState state, TaskAssignment assignment) {
		AssignmentError error = TaskAssignmentUtils.validateTaskAssignment(state, assignment);
		if (error != AssignmentError.NONE) {
			throw new IllegalStateException("planned assignment is invalid: " + error);
		}
		Map<TaskId, Long> actives = assignment.assignment().stream()
			.map(KafkaStreamsAssignment::tasks)
			.flatMap((tasks) -> tasks.values().stream())
			.filter((task) -> task.type() == AssignedTask.Type.ACTIVE)
			.collect(Collectors.groupingBy(AssignedTask::id, Collectors.counting()));
		Collection<TaskId> missing = state.allTasks().keySet().stream()
			.filter((task) -> actives.getOrDefault(task, 0L) != 1)
			.toList();
		if (!missing.isEmpty()) {
			throw new IllegalStateException("planned assignment leaves tasks without exactly one owner: " + missing);
		}
	}

	private TaskAssignment fallback(ApplicationState state, Instant now, RuntimeException cause) {
		Duration retry = this.status.fallback(String.valueOf(cause.getMessage()));
		logger.warn("Learner planning failed, using Kafka's sticky assignor and retrying in {} ms", retry.toMillis(),
				cause);
		TaskAssignment sticky = new StickyTaskAssignor().assign(state);
		TaskAssignment assignment = (TaskAssignmentUtils.validateTaskAssignment(state, sticky) == AssignmentError.NONE)
				? sticky : new TaskAssignment(TaskAssignmentUtils.identityAssignment(state).values());
		List<KafkaStreamsAssignment> clients = new ArrayList<>(assignment.assignment());
		if (!clients.isEmpty()) {
			KafkaStreamsAssignment first = clients.get(0);
			clients.set(0, KafkaStreamsAssignment.of(first.processId(), Set.copyOf(first.tasks().values()))
				.withFollowupRebalance(now.plus(retry)));
		}
		this.lastPlan = null;
		return new TaskAssignment(clients);
	}

}
