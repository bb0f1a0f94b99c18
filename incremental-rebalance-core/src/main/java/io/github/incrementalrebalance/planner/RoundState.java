package io.github.incrementalrebalance.planner;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;

import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ProcessId;

/**
 * The scratch state of one planning round, handed from step to step: who runs, learns and stands by for each task,
 * the moves made and waiting, the projected loads, and what the {@link HandBackRules} remember. Also the questions
 * every step asks of it: is a member caught up on a task, may it run it, where should a task go.
 */
final class RoundState {

	final Group group;

	final PlannerSettings settings;

	final PlacementPolicy policy;

	/** Tasks placed where the policy says they may not run, because no member may run them. */
	final Set<TaskId> outsidePolicy = new TreeSet<>();

	/** Tasks without a running owner, given one this round. */
	final Set<TaskId> orphans = new HashSet<>();

	/**
	 * Where the previous round's plan put each active task, on the members of this round: for an orphan, the member
	 * the previous round moved it to. Empty when that plan is not known.
	 */
	final Map<TaskId, ProcessId> plannedOwner = new HashMap<>();

	/** Where the previous round's plan warmed up a learner of each task, on the members of this round. */
	private final Map<TaskId, ProcessId> plannedLearner = new HashMap<>();

	final Map<ProcessId, GroupMember> members = new LinkedHashMap<>();

	final Map<ProcessId, LeaveRequest> leaving = new LinkedHashMap<>();

	final List<GroupMember> mayTakeWork = new ArrayList<>();

	private final Map<Boolean, Map<Integer, Long>> tasksBySubtopology = new HashMap<>();

	final boolean mixedModes;

	final boolean unknownOffsets;

	final boolean noOtherMember;

	/** Whether no leaving member is handed over this round: the leave requests may be out of date. */
	final boolean handOversHeld;

	/**
	 * Whether the policy has a say: a policy of the application's, or the default with members in racks. Without, no
	 * step asks it, which then costs nothing at any size of group.
	 */
	final boolean policyApplies;

	final Map<TaskId, ProcessId> runningOwner = new TreeMap<>();

	final Map<TaskId, ProcessId> active = new TreeMap<>();

	final Map<TaskId, ProcessId> learnerAt = new TreeMap<>();

	/**
	 * Where this round counts each leaving member's stateful task, at the member taking it over: a learner's place may
	 * change from one leader to the next (one without the previous plan cannot tell it from a standby as far behind).
	 */
	final Map<TaskId, ProcessId> drainedOnto = new TreeMap<>();

	/** A leaving member's tasks whose learner waits for a place (the cap on a drain's restores): still being learned. */
	final Set<TaskId> learnerAwaited = new TreeSet<>();

	final Map<TaskId, Set<ProcessId>> standbys = new TreeMap<>();

	final HandBackRules rules = new HandBackRules();

	final Map<ProcessId, HandOverReason> handOver = new HashMap<>();

	final List<Move> moves = new ArrayList<>();

	final List<WaitingMove> waiting = new ArrayList<>();

	final Loads statefulLoads;

	final Loads statelessLoads;

	/** The members that ran or hold each task before this round: a few per task, not the whole group. */
	final Map<TaskId, List<GroupMember>> reportedBy = new HashMap<>();

	/** Learners placed for balance or cost this round, capped by {@code max.warmup.replicas}. */
	int balancingLearners;

	/**
	 * Whether balancing waits for the next round because the members that should give work took work this round: the
	 * next round then comes at once, not at the next probe.
	 */
	boolean balanceDeferred;

	/**
	 * Whether an orphan went to a caught-up member although another the policy allows is cheaper: it runs from the
	 * next round on and can then move there through a learner, so the next round comes at once.
	 */
	boolean costDeferred;

	/** What each task weighs, as the policy says. */
	private final Map<TaskId, Long> weights = new HashMap<>();

	RoundState(Group group, PlacementPolicy policy) {
		this.group = group;
		this.settings = group.settings();
		this.policy = policy;
		this.policyApplies = policy.getClass() != RackAwarePlacementPolicy.class
				|| group.members().stream().anyMatch((member) -> member.rack().isPresent());
		for (GroupMember member : group.members()) {
			this.members.put(member.processId(), member);
			group.leaveRequestOf(member).ifPresent((request) -> this.leaving.put(member.processId(), request));
			Set<TaskId> reported = new HashSet<>(member.previousActive());
			reported.addAll(member.previousStandby());
			reported.forEach((task) -> this.reportedBy.computeIfAbsent(task, (t) -> new ArrayList<>()).add(member));
		}
		group.members().stream()
			.filter((member) -> !this.leaving.containsKey(member.processId()))
			.forEach(this.mayTakeWork::add);
		this.noOtherMember = this.mayTakeWork.isEmpty();
		this.handOversHeld = group.handOversHeld().isPresent();
		if (this.noOtherMember) {
			this.mayTakeWork.addAll(group.members());
		}
		if (!group.lastPlan().isEmpty()) {
			Map<StartId, ProcessId> byStart = new HashMap<>();
			group.members().forEach((member) -> byStart.put(new StartId(member.instanceId(), member.incarnation()),
					member.processId()));
			for (MemberPlan plan : group.lastPlan()) {
				ProcessId member = byStart.get(new StartId(plan.instanceId(), plan.incarnation()));
				if (member != null) {
					plan.active().forEach((task) -> this.plannedOwner.put(task, member));
					plan.learning().keySet().forEach((task) -> this.plannedLearner.put(task, member));
				}
			}
		}
		this.mixedModes = group.members().stream().anyMatch((member) -> member.mode() == RebalancingMode.UPGRADING);
		this.unknownOffsets = group.members().stream().anyMatch(GroupMember::lagsUnknown);
		for (GroupTask task : group.tasks().values()) {
			this.weights.put(task.id(), weightOf(task));
		}
		// one per task is the default and the common case: no lookup then, the planner runs for every rebalance
		ToLongFunction<TaskId> weight = this.weights.values().stream().allMatch((w) -> w == 1) ? (task) -> 1
				: (task) -> this.weights.getOrDefault(task, 1L);
		this.statefulLoads = new Loads(this.mayTakeWork, this.settings.balancingFactor(), weight);
		this.statelessLoads = new Loads(this.mayTakeWork, this.settings.balancingFactor(), weight);
		for (GroupTask task : group.tasks().values()) {
			findRunningOwner(task.id()).ifPresent((owner) -> this.runningOwner.put(task.id(), owner));
		}
	}

	private long weightOf(GroupTask task) {
		long weight = this.policy.weight(task);
		if (weight < 1) {
			throw new IllegalStateException(this.policy.getClass().getName() + " weighs task " + task.id() + " "
					+ weight + ": a weight is one or more");
		}
		return weight;
	}

	/**
	 * The member running a task now. Two members can report the same task only when one of them missed a rebalance;
	 * the one reporting it running wins.
	 */
	private Optional<ProcessId> findRunningOwner(TaskId task) {
		return this.reportedBy.getOrDefault(task, List.of()).stream()
			.filter((member) -> member.previousActive().contains(task))
			.min(Comparator.comparing((GroupMember member) -> member.lag(task) != GroupMember.RUNNING)
				.thenComparing(GroupMember::processId))
			.map(GroupMember::processId);
	}

	/**
	 * The first step: every running task stays where it runs, unless its member leaves.
	 */
	void keepRunningTasks() {
		this.runningOwner.forEach((task, owner) -> {
			if (mayTakeWork(owner)) {
				this.active.put(task, owner);
				loads(task).add(owner, task);
			}
		});
	}

	/**
	 * Where a task should go: among caught-up candidates the lowest projected load, then the lowest lag, then the
	 * newest member, then the id. When none is caught up, a member already holding state of the task, the most
	 * caught-up first: so a learner keeps its task round after round, by any leader, even when the projected loads
	 * shift as other moves complete. Where several are as far behind (a learner that restored nothing yet, beside
	 * members holding the same old state), the member the previous plan warmed it up on. Then the lowest projected
	 * load, the member warming up the fewest learners (restoring is CPU-bound: spread it), the newest member.
	 */
	ProcessId target(TaskId task, ProcessId owner, List<GroupMember> candidates) {
		return target(task, owner, candidates, loads(task));
	}

	/**
	 * Where a task should go, as {@link #target(TaskId, ProcessId, List)}, against the given loads of its bucket.
	 */
	ProcessId target(TaskId task, ProcessId owner, List<GroupMember> candidates, Loads loads) {
		List<GroupMember> others = allowed(task, candidates.stream()
			.filter((member) -> !member.processId().equals(owner))
			.toList());
		List<GroupMember> caughtUp = others.stream().filter((m) -> caughtUp(m.processId(), task)).toList();
		Comparator<GroupMember> byLoad = Comparator
			.comparingDouble((GroupMember member) -> loads.loadWith(member.processId(), task));
		Comparator<GroupMember> byCost = Comparator.comparingLong(costWithinFactor(task, others, loads));
		Comparator<GroupMember> byLag = Comparator.comparingLong((member) -> member.lag(task));
		Comparator<GroupMember> newestFirst = Comparator.comparing(GroupMember::startedAt, Comparator.reverseOrder());
		Comparator<GroupMember> bySpread = Comparator.comparing(overCapWith(task)::test);
		if (!caughtUp.isEmpty()) {
			// by load first: a warm orphan is the second round of a move, whose new owner balancing made lighter;
			// placing by cost moves it on afterwards if a caught-up member is cheaper, or with balance_subtopology
			// if it lands above its sub-topology's cap
			Comparator<GroupMember> byCostAmongCaughtUp = Comparator
				.comparingLong(costWithinFactor(task, caughtUp, loads));
			return caughtUp.stream()
				.min(byLoad.thenComparing(byCostAmongCaughtUp)
					.thenComparing(bySpread)
					.thenComparing(byLag)
					.thenComparing(newestFirst)
					.thenComparing(GroupMember::processId))
				.orElseThrow()
				.processId();
		}
		Map<ProcessId, Long> learnersOf = this.learnerAt.values().stream()
			.collect(Collectors.groupingBy((member) -> member, Collectors.counting()));
		Comparator<GroupMember> fewerLearners = Comparator
			.comparingLong((member) -> learnersOf.getOrDefault(member.processId(), 0L));
		Comparator<GroupMember> holdersFirst = Comparator.comparing((member) -> !member.holds(task));
		ProcessId learnedOn = this.plannedLearner.get(task);
		Comparator<GroupMember> learnedBefore = Comparator.comparing((member) -> !member.processId().equals(learnedOn));
		return others.stream()
			.min(holdersFirst.thenComparing(byLag)
				.thenComparing(learnedBefore)
				.thenComparing(byCost)
				.thenComparing(bySpread)
				.thenComparing(byLoad)
				.thenComparing(fewerLearners)
				.thenComparing(newestFirst)
				.thenComparing(GroupMember::processId))
			.orElseThrow()
			.processId();
	}

	/**
	 * With {@code balance_subtopology}, whether a member would hold more of the task's sub-topology than its cap with
	 * the task: among members as good by load the orphan step prefers one within the cap, and balancing a move that
	 * keeps its target within it; without, none is above it.
	 */
	Predicate<GroupMember> overCapWith(TaskId task) {
		if (!this.settings.balanceSubtopologies()) {
			return (member) -> false;
		}
		boolean stateful = isStateful(task);
		Loads loads = loads(task);
		Map<ProcessId, Integer> ofSubtopology = new HashMap<>();
		this.active.forEach((other, member) -> {
			if (other.subtopology() == task.subtopology() && isStateful(other) == stateful) {
				ofSubtopology.merge(member, 1, Integer::sum);
			}
		});
		// every task of the kind, placed or not yet: the same share whichever step asks, and in any order
		long ofKind = tasksBySubtopology(stateful).values().stream().mapToLong(Long::longValue).sum();
		int threads = this.mayTakeWork.stream().mapToInt(GroupMember::capacity).sum();
		return (member) -> {
			int with = loads.count(member.processId()) + 1;
			int most = Math.max(with, (int) Math.ceil((double) ofKind * member.capacity() / threads));
			return ofSubtopology.getOrDefault(member.processId(), 0) + 1 > subtopologyCap(most, task.subtopology(),
					stateful);
		};
	}

	/**
	 * Kafka's {@code balance_subtopology} cap: a member that may hold {@code mostTasks} of a kind (stateful or
	 * stateless) should hold at most that share, rounded up, of a sub-topology's tasks of the kind.
	 */
	int subtopologyCap(int mostTasks, int subtopology, boolean stateful) {
		Map<Integer, Long> bySubtopology = tasksBySubtopology(stateful);
		long ofKind = bySubtopology.values().stream().mapToLong(Long::longValue).sum();
		return (int) Math.ceil((double) mostTasks * bySubtopology.getOrDefault(subtopology, 0L) / ofKind);
	}

	/**
	 * The group's tasks of a kind by sub-topology, counted once a round: the caps are asked for per member.
	 */
	private Map<Integer, Long> tasksBySubtopology(boolean stateful) {
		return this.tasksBySubtopology.computeIfAbsent(stateful, (kind) -> this.group.tasks()
			.keySet()
			.stream()
			.filter((task) -> isStateful(task) == kind)
			.collect(Collectors.groupingBy(TaskId::subtopology, Collectors.counting())));
	}

	/**
	 * The stateful bucket's loads without the leaving members' tasks: what the members run, and what this round moved
	 * to them, before any drain lands.
	 */
	Loads statefulLoadsWithoutDrains() {
		if (this.drainedOnto.isEmpty()) {
			return this.statefulLoads;
		}
		Loads loads = this.statefulLoads.copy();
		this.drainedOnto.forEach((task, member) -> loads.remove(member, task));
		return loads;
	}

	/**
	 * The weight this round counts on each member for leaving members' tasks.
	 */
	Map<ProcessId, Long> drainedWeights() {
		Map<ProcessId, Long> weights = new HashMap<>();
		this.drainedOnto.forEach((task, member) -> weights.merge(member, this.statefulLoads.weight(task), Long::sum));
		return weights;
	}

	ProcessId leastLoaded(TaskId task, List<GroupMember> candidates) {
		Loads loads = loads(task);
		return allowed(task, candidates).stream()
			.min(Comparator.comparingDouble((GroupMember member) -> loads.loadWith(member.processId(), task))
				.thenComparing(GroupMember::startedAt, Comparator.reverseOrder())
				.thenComparing(GroupMember::processId))
			.orElseThrow()
			.processId();
	}

	/**
	 * A candidate's cost for a task, counted only for the lightest candidates and those that would carry at most the
	 * balancing factor times the least loaded member: a cheaper member is preferred while the bucket stays within the
	 * factor, so that placing by cost leaves balancing nothing to move again.
	 */
	private ToLongFunction<GroupMember> costWithinFactor(TaskId task, List<GroupMember> candidates, Loads loads) {
		if (!this.policyApplies) {
			return (member) -> 0;
		}
		GroupTask groupTask = this.group.tasks().get(task);
		double lightest = candidates.stream()
			.mapToDouble((member) -> loads.loadWith(member.processId(), task))
			.min()
			.orElse(0);
		double limit = Math.max(lightest, loads.minLoad() * this.settings.balancingFactor()) + 1e-9;
		return (member) -> (loads.loadWith(member.processId(), task) <= limit) ? this.policy.cost(groupTask, member)
				: Long.MAX_VALUE;
	}

	/**
	 * The candidates the policy lets run a task; all of them, noted in the plan, when it lets none run it.
	 */
	List<GroupMember> allowed(TaskId task, List<GroupMember> candidates) {
		if (!this.policyApplies) {
			return candidates;
		}
		GroupTask groupTask = this.group.tasks().get(task);
		List<GroupMember> allowed = candidates.stream().filter((member) -> this.policy.mayRun(groupTask, member)).toList();
		if (allowed.isEmpty() && !candidates.isEmpty()) {
			this.outsidePolicy.add(task);
			return candidates;
		}
		return allowed;
	}

	boolean mayRun(GroupTask task, ProcessId member) {
		return this.policy.mayRun(task, this.members.get(member));
	}

	long costAt(TaskId task, ProcessId member) {
		return this.policy.cost(this.group.tasks().get(task), this.members.get(member));
	}

	void moveNow(TaskId task, Optional<ProcessId> from, ProcessId to, String why) {
		this.active.put(task, to);
		long lag = isStateful(task) ? this.members.get(to).lag(task) : 0;
		this.moves.add(new Move(task, from.map(this::name), name(to), why, lag));
	}

	void waitFor(TaskId task, ProcessId from, ProcessId to, WaitReason reason) {
		this.waiting.add(new WaitingMove(task, name(from), name(to), reason));
	}

	/**
	 * A learner for a balance or cost move, within {@code max.warmup.replicas}; beyond it, the move waits.
	 */
	void learnOrWait(TaskId task, ProcessId from, ProcessId to) {
		if (this.balancingLearners < this.settings.maxWarmupReplicas()) {
			this.balancingLearners++;
			this.learnerAt.put(task, to);
			waitFor(task, from, to, WaitReason.LEARNER_NOT_READY);
		}
		else {
			waitFor(task, from, to, WaitReason.WARMUP_CAP);
		}
	}

	/**
	 * The members the previous plan gave a learner of a task that still runs elsewhere: each takes that task once its
	 * learner is ready.
	 */
	Set<ProcessId> membersWithLearners() {
		Set<ProcessId> learning = new HashSet<>();
		this.plannedLearner.forEach((task, learner) -> {
			ProcessId owner = this.runningOwner.get(task);
			if (owner != null && !owner.equals(learner) && mayTakeWork(learner)) {
				learning.add(learner);
			}
		});
		return learning;
	}

	boolean caughtUp(ProcessId member, TaskId task) {
		if (!isStateful(task)) {
			return true;
		}
		long lag = this.members.get(member).lag(task);
		long acceptable = this.settings.acceptableRecoveryLag();
		return lag == GroupMember.RUNNING || (lag >= 0 && (acceptable == Long.MAX_VALUE || lag <= acceptable));
	}

	boolean isStateful(TaskId task) {
		GroupTask groupTask = this.group.tasks().get(task);
		return groupTask != null && groupTask.stateful();
	}

	boolean mayTakeWork(ProcessId member) {
		return this.noOtherMember || !this.leaving.containsKey(member);
	}

	Loads loads(TaskId task) {
		return loads(isStateful(task));
	}

	Loads loads(boolean stateful) {
		return stateful ? this.statefulLoads : this.statelessLoads;
	}

	String name(ProcessId member) {
		return this.members.get(member).instanceId();
	}

	/**
	 * The plan this round comes to.
	 * @param followUp when the next round should come
	 */
	Plan plan(Optional<Instant> followUp) {
		return new Plan(memberPlans(), this.moves, this.waiting, followUp, this.unknownOffsets, this.mixedModes,
				duplicateInstanceIds(), this.outsidePolicy, placementCost());
	}

	private SortedMap<ProcessId, MemberPlan> memberPlans() {
		Map<ProcessId, SortedSet<TaskId>> activeByMember = byMember(this.active);
		Map<ProcessId, SortedSet<TaskId>> learnerByMember = byMember(this.learnerAt);
		Map<ProcessId, SortedSet<TaskId>> standbyByMember = new HashMap<>();
		this.standbys.forEach((task, holders) -> holders
			.forEach((holder) -> standbyByMember.computeIfAbsent(holder, (m) -> new TreeSet<>()).add(task)));
		SortedMap<ProcessId, MemberPlan> plans = new TreeMap<>();
		for (GroupMember member : this.members.values()) {
			ProcessId id = member.processId();
			SortedSet<TaskId> activeTasks = activeByMember.getOrDefault(id, new TreeSet<>());
			SortedMap<TaskId, Learner> learning = new TreeMap<>();
			learnerByMember.getOrDefault(id, new TreeSet<>()).forEach((task) -> {
				long lag = member.lag(task);
				learning.put(task, new Learner(task, lag, caughtUp(id, task)));
			});
			SortedSet<TaskId> beingLearned = activeTasks.stream()
				.filter((task) -> this.learnerAt.containsKey(task) || this.learnerAwaited.contains(task))
				.collect(Collectors.toCollection(TreeSet::new));
			SortedSet<TaskId> standbyTasks = standbyByMember.getOrDefault(id, new TreeSet<>());
			plans.put(id, new MemberPlan(member.instanceId(), member.incarnation(), activeTasks, learning,
					beingLearned, standbyTasks, this.leaving.containsKey(id),
					Optional.ofNullable(this.leaving.get(id)).map(LeaveRequest::leaveId),
					Optional.ofNullable(this.handOver.get(id)), member.mode()));
		}
		return plans;
	}

	/**
	 * Two live members with one instance id cannot be told apart by the operator: a leave would hit both.
	 */
	private Set<String> duplicateInstanceIds() {
		Map<String, Long> byId = this.group.members().stream()
			.collect(Collectors.groupingBy(GroupMember::instanceId, Collectors.counting()));
		return byId.entrySet().stream()
			.filter((entry) -> entry.getValue() > 1)
			.map(Map.Entry::getKey)
			.collect(Collectors.toSet());
	}

	private static Map<ProcessId, SortedSet<TaskId>> byMember(Map<TaskId, ProcessId> placement) {
		Map<ProcessId, SortedSet<TaskId>> tasks = new HashMap<>();
		placement.forEach((task, member) -> tasks.computeIfAbsent(member, (m) -> new TreeSet<>()).add(task));
		return tasks;
	}

	/**
	 * The policy's cost of the planned active tasks where they run after this round.
	 */
	private long placementCost() {
		if (!this.policyApplies) {
			return 0;
		}
		long cost = 0;
		for (Map.Entry<TaskId, ProcessId> entry : this.active.entrySet()) {
			cost += this.policy.cost(this.group.tasks().get(entry.getKey()), this.members.get(entry.getValue()));
		}
		return cost;
	}

}
