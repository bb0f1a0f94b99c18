package io.github.incrementalrebalance.planner;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.IntPredicate;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ProcessId;

/**
 * Plans one assignment with learners: a stateful task moves only once its state is warm on its new owner; a leaving
 * member hands its tasks over to warm learners before it goes; work is taken from the most loaded members until the
 * group is within the balancing factor. Pure: a {@link Group} in, a {@link Plan} out, nothing remembered.
 * <p>
 * The steps, each a method of {@link Round} named as in the design: classify the members, keep running tasks where
 * they run, drain leaving members, place orphans (the second round of a move lands here), balance, place by cost,
 * place standbys, schedule follow-ups. Every step asks the {@link PlacementPolicy} which members may run a task and,
 * among those, prefers the cheaper ones.
 */
public final class LearnerPlanner {

	/** How soon to retry after a round whose end offsets were unknown. */
	static final Duration UNKNOWN_OFFSETS_RETRY = Duration.ofSeconds(5);

	private final PlacementPolicy policy;

	/**
	 * A planner that places by warmth and load alone: every member may run every task, at no cost.
	 */
	public LearnerPlanner() {
		this(new RackAwarePlacementPolicy());
	}

	/**
	 * A planner that asks a policy where tasks may run and what that costs.
	 * @param policy the placement policy
	 */
	public LearnerPlanner(PlacementPolicy policy) {
		this.policy = Objects.requireNonNull(policy, "policy");
	}

	/**
	 * Plan an assignment.
	 * @param group what Kafka and the control topic report this round
	 * @return the plan
	 */
	public Plan plan(Group group) {
		return new Round(group, this.policy).plan();
	}

	/**
	 * The scratch state of one planning round.
	 */
	private static final class Round {

		private final Group group;

		private final PlannerSettings settings;

		private final PlacementPolicy policy;

		/** Tasks placed where the policy says they may not run, because no member may run them. */
		private final Set<TaskId> outsidePolicy = new TreeSet<>();

		/** Tasks without a running owner, given one this round. */
		private final Set<TaskId> orphans = new HashSet<>();

		private final Map<ProcessId, GroupMember> members = new LinkedHashMap<>();

		private final Map<ProcessId, LeaveRequest> leaving = new LinkedHashMap<>();

		private final List<GroupMember> mayTakeWork = new ArrayList<>();

		private final boolean mixedModes;

		private final boolean unknownOffsets;

		private final boolean noOtherMember;

		private final Map<TaskId, ProcessId> runningOwner = new TreeMap<>();

		private final Map<TaskId, ProcessId> active = new TreeMap<>();

		private final Map<TaskId, ProcessId> learnerAt = new TreeMap<>();

		private final Map<TaskId, Set<ProcessId>> standbys = new TreeMap<>();

		private final Set<TaskId> decided = new HashSet<>();

		/**
		 * Members given a task this round (an orphan or a leaving member's task): they give none away for balance,
		 * since what they give comes back as an orphan next round, judged against loads without what they took.
		 */
		private final Set<ProcessId> tookWork = new HashSet<>();

		/**
		 * Members given an orphan this round: they run it from the next round on and may give work then, so
		 * balancing they hold up is retried at once (a leaving member's learners, in contrast, wait for a while).
		 */
		private final Set<ProcessId> tookOrphans = new HashSet<>();

		/**
		 * Whether the policy has a say: a policy of the application's, or the default with members in racks. Without,
		 * no step asks it, which then costs nothing at any size of group.
		 */
		private final boolean policyApplies;

		/** Members given a task by balancing this round: like {@link #tookWork}, they give none away by cost. */
		private final Set<ProcessId> balancedOnto = new HashSet<>();

		/** Members balancing took a task from this round: they take none by cost. */
		private final Set<ProcessId> balancedFrom = new HashSet<>();

		private final Map<ProcessId, HandOverReason> handOver = new HashMap<>();

		private final List<Move> moves = new ArrayList<>();

		private final List<WaitingMove> waiting = new ArrayList<>();

		private final Loads statefulLoads;

		private final Loads statelessLoads;

		private int balancingLearners;

		/**
		 * Whether balancing waits for the next round because the members that should give work took work this round:
		 * the next round then comes at once, not at the next probe.
		 */
		private boolean balanceDeferred;

		/**
		 * Whether an orphan went to a caught-up member although another the policy allows is cheaper: it runs from
		 * the next round on and can then move there through a learner, so the next round comes at once.
		 */
		private boolean costDeferred;

		/** What each task weighs, as the policy says. */
		private final Map<TaskId, Long> weights = new HashMap<>();

		/** The members that ran or hold each task before this round: a few per task, not the whole group. */
		private final Map<TaskId, List<GroupMember>> reportedBy = new HashMap<>();

		Round(Group group, PlacementPolicy policy) {
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
			if (this.noOtherMember) {
				this.mayTakeWork.addAll(group.members());
			}
			this.mixedModes = group.members().stream().anyMatch((member) -> member.mode() == RebalancingMode.UPGRADING);
			this.unknownOffsets = group.members().stream()
				.anyMatch(GroupMember::lagsUnknown);
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

		Plan plan() {
			keepRunningTasks();
			drainLeavingMembers();
			if (!this.mixedModes && this.policyApplies) {
				moveOffExcludedMembers();
			}
			placeOrphans();
			if (!this.mixedModes) {
				balance(false);
				placeByCost(false);
				if (!this.unknownOffsets) {
					balance(true);
					placeByCost(true);
				}
			}
			if (this.unknownOffsets) {
				keepLearnersWhileOffsetsAreUnknown();
			}
			placeStandbys();
			return new Plan(memberPlans(), this.moves, this.waiting, followUp(), this.unknownOffsets,
					this.mixedModes, duplicateInstanceIds(), this.outsidePolicy, placementCost());
		}

		/**
		 * The member running a task now. Two members can report the same task only when one of them missed a
		 * rebalance; the one reporting it running wins.
		 */
		private Optional<ProcessId> findRunningOwner(TaskId task) {
			return this.reportedBy.getOrDefault(task, List.of()).stream()
				.filter((member) -> member.previousActive().contains(task))
				.min(Comparator.comparing((GroupMember member) -> member.lag(task) != GroupMember.RUNNING)
					.thenComparing(GroupMember::processId))
				.map(GroupMember::processId);
		}

		private void keepRunningTasks() {
			this.runningOwner.forEach((task, owner) -> {
				if (mayTakeWork(owner)) {
					this.active.put(task, owner);
					loads(task).add(owner, task);
				}
			});
		}

		private void drainLeavingMembers() {
			for (Map.Entry<ProcessId, LeaveRequest> entry : this.leaving.entrySet()) {
				ProcessId leaver = entry.getKey();
				List<TaskId> tasks = this.runningOwner.entrySet().stream()
					.filter((owned) -> owned.getValue().equals(leaver))
					.map(Map.Entry::getKey)
					.toList();
				if (this.noOtherMember) {
					this.handOver.put(leaver, HandOverReason.NO_OTHER_MEMBER);
					continue;
				}
				if (this.mixedModes) {
					tasks.forEach((task) -> this.active.put(task, leaver));
					this.handOver.put(leaver, HandOverReason.LEARNERS_UNAVAILABLE);
					continue;
				}
				drain(leaver, tasks);
			}
		}

		/**
		 * Place a learner for every stateful task of a leaving member, move its stateless tasks at once, and decide
		 * whether it hands over now, moves its ready tasks one by one (eager) or waits for all learners
		 * (conservative).
		 */
		private void drain(ProcessId leaver, List<TaskId> tasks) {
			Map<TaskId, ProcessId> targets = new TreeMap<>();
			for (TaskId task : tasks) {
				ProcessId target = target(task, leaver, this.mayTakeWork);
				loads(task).add(target, task);
				this.tookWork.add(target);
				if (isStateful(task)) {
					targets.put(task, target);
					this.learnerAt.put(task, target);
					this.active.put(task, leaver);
				}
				else {
					moveNow(task, Optional.of(leaver), target, "leaving member, stateless");
				}
			}
			boolean allReady = targets.entrySet().stream().allMatch((t) -> caughtUp(t.getValue(), t.getKey()));
			if (this.unknownOffsets) {
				targets.forEach((task, target) -> waitFor(task, leaver, target, WaitReason.UNKNOWN_OFFSETS));
				return;
			}
			if (allReady) {
				this.handOver.put(leaver, HandOverReason.LEARNERS_READY);
				return;
			}
			targets.forEach((task, target) -> {
				boolean ready = caughtUp(target, task);
				if (ready && this.settings.learnerRebalance() == LearnerRebalance.EAGER) {
					this.learnerAt.remove(task);
					moveNow(task, Optional.of(leaver), target, "leaving member, learner ready");
				}
				else {
					waitFor(task, leaver, target,
							ready ? WaitReason.WAITING_FOR_OTHER_LEARNERS : WaitReason.LEARNER_NOT_READY);
				}
			});
		}

		/**
		 * A task running on a member the policy does not let run it is handed over as a leaving member's is: at once
		 * when it is stateless or another member is caught up on it, else once a learner on a member the policy allows
		 * is. These learners are not capped by {@code max.warmup.replicas}: the policy asks for them, not the balance.
		 */
		private void moveOffExcludedMembers() {
			List<Map.Entry<TaskId, ProcessId>> excluded = this.active.entrySet().stream()
				.filter((entry) -> entry.getValue().equals(this.runningOwner.get(entry.getKey()))
						&& !this.leaving.containsKey(entry.getValue()) && !this.learnerAt.containsKey(entry.getKey())
						&& !mayRun(this.group.tasks().get(entry.getKey()), entry.getValue()))
				.toList();
			for (Map.Entry<TaskId, ProcessId> entry : excluded) {
				TaskId task = entry.getKey();
				ProcessId owner = entry.getValue();
				GroupTask groupTask = this.group.tasks().get(task);
				if (this.mayTakeWork.stream().noneMatch((member) -> this.policy.mayRun(groupTask, member))) {
					this.outsidePolicy.add(task);
					continue;
				}
				ProcessId target = target(task, owner, this.mayTakeWork);
				loads(task).move(task, owner, target);
				this.tookWork.add(target);
				this.decided.add(task);
				if (caughtUp(target, task)) {
					moveNow(task, Optional.of(owner), target, "excluded by the placement policy");
				}
				else {
					this.learnerAt.put(task, target);
					waitFor(task, owner, target, WaitReason.LEARNER_NOT_READY);
				}
			}
		}

		/**
		 * Tasks nobody runs this round (a member crashed or left, or the second round of a move) go to the most
		 * caught-up member: a ready learner first, else the member holding the most state, else the least loaded.
		 * <p>
		 * A stateful orphan that a member holds caught up is typically the second round of a move: its former owner
		 * holds it caught up (the checkpoint of the revocation), its new owner is caught up too. All such orphans go to
		 * a caught-up member, placed against the same loads (those before any of them lands), so the order they are
		 * placed in cannot push one onto its former owner; see {@link #keepOnlyMovesNeverHandedBack}. Orphans nobody
		 * holds (a new application's tasks, whose empty changelogs make every member look caught up) are spread one by
		 * one over the least loaded members.
		 */
		private void placeOrphans() {
			List<TaskId> orphans = this.group.tasks().keySet().stream()
				.filter((task) -> !this.runningOwner.containsKey(task))
				.toList();
			Map<TaskId, ProcessId> warm = new TreeMap<>();
			if (!this.mixedModes) {
				for (TaskId task : orphans) {
					boolean heldWarm = this.mayTakeWork.stream()
						.anyMatch((member) -> member.holds(task) && caughtUp(member.processId(), task));
					if (isStateful(task) && heldWarm) {
						warm.put(task, target(task, null, this.mayTakeWork));
					}
				}
			}
			warm.forEach((task, target) -> {
				loads(task).add(target, task);
				this.tookWork.add(target);
				this.tookOrphans.add(target);
				this.orphans.add(task);
				moveNow(task, Optional.empty(), target, "no running owner");
			});
			for (TaskId task : orphans) {
				if (warm.containsKey(task)) {
					continue;
				}
				ProcessId target = this.mixedModes ? leastLoaded(task, this.mayTakeWork) : orphanTarget(task);
				loads(task).add(target, task);
				this.tookWork.add(target);
				this.tookOrphans.add(target);
				this.orphans.add(task);
				moveNow(task, Optional.empty(), target, "no running owner");
			}
		}

		private ProcessId orphanTarget(TaskId task) {
			List<GroupMember> caughtUp = this.mayTakeWork.stream().filter((m) -> caughtUp(m.processId(), task)).toList();
			if (!caughtUp.isEmpty() || !isStateful(task)) {
				return target(task, null, this.mayTakeWork);
			}
			Loads loads = loads(task);
			return allowed(task, this.mayTakeWork).stream()
				.filter((member) -> member.holds(task))
				.min(Comparator.comparingLong((GroupMember member) -> member.lag(task))
					.thenComparingDouble((member) -> loads.loadWith(member.processId(), task))
					.thenComparing(GroupMember::startedAt, Comparator.reverseOrder())
					.thenComparing(GroupMember::processId))
				.map(GroupMember::processId)
				.orElseGet(() -> leastLoaded(task, this.mayTakeWork));
		}

		/**
		 * Take tasks from the most loaded member until the bucket is within the balancing factor. A stateful task
		 * moves now only to a caught-up member; otherwise it stays being learned while a learner warms up, at most
		 * {@code max.warmup.replicas} of them at a time. Tasks with a warming learner are taken first, so the same
		 * pick is made round after round, by any leader.
		 */
		private void balance(boolean stateful) {
			Loads loads = stateful ? this.statefulLoads : this.statelessLoads;
			List<BalanceMove> chosen = new ArrayList<>();
			Set<ProcessId> givers = new HashSet<>();
			Set<ProcessId> takers = new HashSet<>(this.tookWork);
			while (!loads.withinTolerance()) {
				Optional<BalanceMove> pick = warmestMove(stateful, loads, givers, takers)
					.or(() -> loads.byLoadDescending().stream()
						.filter((from) -> !takers.contains(from))
						.flatMap((from) -> movableTasks(from, stateful, loads, givers).stream()
							.map((task) -> balanceTarget(task, from, loads, givers)
								.map((to) -> new BalanceMove(task, from, to)))
							.flatMap(Optional::stream))
						.findFirst());
				if (pick.isEmpty()) {
					this.balanceDeferred |= loads.byLoadDescending().stream()
						.filter(this.tookOrphans::contains)
						.anyMatch((from) -> movableTasks(from, stateful, loads, givers).stream()
							.anyMatch((task) -> balanceTarget(task, from, loads, givers).isPresent()));
					break;
				}
				BalanceMove move = pick.get();
				givers.add(move.from());
				takers.add(move.to());
				this.balancedOnto.add(move.to());
				this.balancedFrom.add(move.from());
				loads.move(move.task(), move.from(), move.to());
				this.decided.add(move.task());
				chosen.add(move);
			}
			keepOnlyMovesNeverHandedBack(chosen, loads);
			for (BalanceMove move : chosen) {
				TaskId task = move.task();
				if (!stateful || caughtUp(move.to(), task)) {
					moveNow(task, Optional.of(move.from()), move.to(),
							stateful ? "balance, learner ready" : "balance");
				}
				else if (this.balancingLearners < this.settings.maxWarmupReplicas()) {
					this.balancingLearners++;
					this.learnerAt.put(task, move.to());
					waitFor(task, move.from(), move.to(), WaitReason.LEARNER_NOT_READY);
				}
				else {
					waitFor(task, move.from(), move.to(), WaitReason.WARMUP_CAP);
				}
			}
		}

		/**
		 * Whether a move's new owner stays strictly lighter than its giver would be with the task back, even if the
		 * next round lands the leaving members' tasks differently: their learners are caught up on several members
		 * and the least loaded of those gets each, so count every such task on the taker and none on the giver.
		 */
		private boolean staysLighter(BalanceMove move, Loads loads) {
			long mayLandOnTaker = 0;
			long mayLeaveGiver = 0;
			for (Map.Entry<TaskId, ProcessId> drained : this.learnerAt.entrySet()) {
				TaskId task = drained.getKey();
				ProcessId owner = this.active.get(task);
				if (owner == null || !this.leaving.containsKey(owner) || !isStateful(move.task())) {
					continue;
				}
				boolean takerCaughtUp = caughtUp(move.to(), task);
				if (takerCaughtUp && !drained.getValue().equals(move.to())) {
					mayLandOnTaker += loads.weight(task);
				}
				if (drained.getValue().equals(move.from()) && this.mayTakeWork.stream()
					.anyMatch((m) -> !m.processId().equals(move.from()) && caughtUp(m.processId(), task))) {
					mayLeaveGiver += loads.weight(task);
				}
			}
			return loads.staysLighter(move.to(), mayLandOnTaker, move.from(), move.task(), mayLeaveGiver);
		}

		/**
		 * In the round after a move, the task has no running owner and both its new owner and its former owner look
		 * caught up (the former reports the checkpoint it wrote when the task was revoked). Nothing in Kafka's input
		 * tells them apart, so the orphan goes to the lower projected load. Keep only moves whose new owner will still
		 * be strictly lighter then, with every move of this round done: {@code load(to) < load(from) + 1 task}; undo
		 * the latest moves until that holds. The next round takes up what is undone.
		 */
		private void keepOnlyMovesNeverHandedBack(List<BalanceMove> chosen, Loads loads) {
			while (!chosen.isEmpty() && chosen.stream().anyMatch((move) -> !staysLighter(move, loads))) {
				BalanceMove undone = chosen.remove(chosen.size() - 1);
				loads.move(undone.task(), undone.to(), undone.from());
				this.decided.remove(undone.task());
			}
		}

		/**
		 * The move of an above-average member's task onto a lighter member that already holds state of it, the most
		 * caught-up first: a learner placed in an earlier round is picked again, whichever member happens to be the
		 * most loaded now.
		 */
		private Optional<BalanceMove> warmestMove(boolean stateful, Loads loads, Set<ProcessId> givers,
				Set<ProcessId> takers) {
			if (!stateful) {
				return Optional.empty();
			}
			double mean = loads.meanLoad();
			Comparator<BalanceMove> warmestFirst = Comparator
				.comparingLong((BalanceMove move) -> this.members.get(move.to()).lag(move.task()))
				.thenComparing(Comparator.comparingDouble((BalanceMove move) -> loads.load(move.from())).reversed())
				.thenComparing(BalanceMove::task);
			return this.active.entrySet().stream()
				.filter((entry) -> isStateful(entry.getKey()) && mayTakeWork(entry.getValue())
						&& !takers.contains(entry.getValue()) && loads.load(entry.getValue()) > mean)
				.filter((entry) -> entry.getValue().equals(this.runningOwner.get(entry.getKey()))
						&& !this.decided.contains(entry.getKey()))
				.filter((entry) -> this.mayTakeWork.stream()
					.anyMatch((member) -> member.holds(entry.getKey()) && !givers.contains(member.processId())
							&& !member.processId().equals(entry.getValue())
							&& loads.improves(entry.getValue(), member.processId(), entry.getKey())))
				.map((entry) -> balanceTarget(entry.getKey(), entry.getValue(), loads, givers)
					.map((to) -> new BalanceMove(entry.getKey(), entry.getValue(), to)))
				.flatMap(Optional::stream)
				.filter((move) -> this.members.get(move.to()).holds(move.task()))
				.filter((move) -> !this.policyApplies || costAt(move.task(), move.to()) <= costAt(move.task(), move.from()))
				.min(warmestFirst);
		}

		/**
		 * The tasks balancing may take from a member, those that cost no more at a lighter member first (when the
		 * policy has costs): a balance move that costs more would be undone by cost in the round after it, when the
		 * task is caught up at both ends. Then those a lighter member holds warmest.
		 */
		private List<TaskId> movableTasks(ProcessId from, boolean stateful, Loads loads, Set<ProcessId> givers) {
			Comparator<TaskId> cheapestFirst = this.policyApplies
					? Comparator.comparingLong((TaskId task) -> cheapestBalanceDelta(task, from, loads, givers))
					: Comparator.comparingLong((TaskId task) -> 0);
			return this.active.entrySet().stream()
				.filter((entry) -> entry.getValue().equals(from) && isStateful(entry.getKey()) == stateful)
				.map(Map.Entry::getKey)
				.filter((task) -> from.equals(this.runningOwner.get(task)) && !this.decided.contains(task))
				.sorted(cheapestFirst.thenComparingLong((TaskId task) -> bestHolderLag(task, from))
					.thenComparing(Comparator.naturalOrder()))
				.toList();
		}

		private long cheapestBalanceDelta(TaskId task, ProcessId from, Loads loads, Set<ProcessId> givers) {
			long here = costAt(task, from);
			return this.mayTakeWork.stream()
				.filter((member) -> !member.processId().equals(from) && !givers.contains(member.processId())
						&& loads.improves(from, member.processId(), task)
						&& mayRun(this.group.tasks().get(task), member.processId()))
				.mapToLong((member) -> costAt(task, member.processId()) - here)
				.min()
				.orElse(Long.MAX_VALUE);
		}

		private long costAt(TaskId task, ProcessId member) {
			return this.policy.cost(this.group.tasks().get(task), this.members.get(member));
		}

		private long bestHolderLag(TaskId task, ProcessId owner) {
			if (!isStateful(task)) {
				return Long.MAX_VALUE;
			}
			return this.mayTakeWork.stream()
				.filter((member) -> !member.processId().equals(owner) && member.holds(task))
				.mapToLong((member) -> member.lag(task))
				.filter((lag) -> lag >= 0)
				.min()
				.orElse(Long.MAX_VALUE);
		}

		/**
		 * A lighter member that gives no task away this round: a member that both gives and takes would see its
		 * given task come back as an orphan next round, judged against a load without the task it took.
		 */
		private Optional<ProcessId> balanceTarget(TaskId task, ProcessId from, Loads loads, Set<ProcessId> givers) {
			GroupTask groupTask = this.policyApplies ? this.group.tasks().get(task) : null;
			List<GroupMember> lighter = this.mayTakeWork.stream()
				.filter((member) -> !member.processId().equals(from) && !givers.contains(member.processId())
						&& loads.improves(from, member.processId(), task)
						&& (groupTask == null || this.policy.mayRun(groupTask, member)))
				.toList();
			return lighter.isEmpty() ? Optional.empty() : Optional.of(target(task, from, lighter));
		}

		/**
		 * Where a task should go: among caught-up candidates the lowest projected load, then the lowest lag, then the
		 * newest member, then the id. When none is caught up, a member already holding state of the task, the most
		 * caught-up first: so a learner keeps its task round after round, by any leader, even when the projected
		 * loads shift as other moves complete. Then the lowest projected load, the member warming up the fewest
		 * learners (restoring is CPU-bound: spread it), the newest member.
		 */
		private ProcessId target(TaskId task, ProcessId owner, List<GroupMember> candidates) {
			Loads loads = loads(task);
			List<GroupMember> others = allowed(task, candidates.stream()
				.filter((member) -> !member.processId().equals(owner))
				.toList());
			List<GroupMember> caughtUp = others.stream().filter((m) -> caughtUp(m.processId(), task)).toList();
			Comparator<GroupMember> byLoad = Comparator
				.comparingDouble((GroupMember member) -> loads.loadWith(member.processId(), task));
			Comparator<GroupMember> byCost = Comparator.comparingLong(costWithinFactor(task, others, loads));
			Comparator<GroupMember> byLag = Comparator.comparingLong((member) -> member.lag(task));
			Comparator<GroupMember> newestFirst = Comparator.comparing(GroupMember::startedAt,
					Comparator.reverseOrder());
			if (!caughtUp.isEmpty()) {
				// by load first: a warm orphan is the second round of a move, whose new owner balancing made lighter;
				// placing by cost moves it on afterwards if a caught-up member is cheaper
				Comparator<GroupMember> byCostAmongCaughtUp = Comparator
					.comparingLong(costWithinFactor(task, caughtUp, loads));
				return caughtUp.stream()
					.min(byLoad.thenComparing(byCostAmongCaughtUp)
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
			return others.stream()
				.min(holdersFirst.thenComparing(byLag)
					.thenComparing(byCost)
					.thenComparing(byLoad)
					.thenComparing(fewerLearners)
					.thenComparing(newestFirst)
					.thenComparing(GroupMember::processId))
				.orElseThrow()
				.processId();
		}

		private ProcessId leastLoaded(TaskId task, List<GroupMember> candidates) {
			Loads loads = loads(task);
			return allowed(task, candidates).stream()
				.min(Comparator.comparingDouble((GroupMember member) -> loads.loadWith(member.processId(), task))
					.thenComparing(GroupMember::startedAt, Comparator.reverseOrder())
					.thenComparing(GroupMember::processId))
				.orElseThrow()
				.processId();
		}

		/**
		 * With lags unknown nobody can tell a learner from a leftover directory: keep every standby that members
		 * already hold of a task without a learner this round, so no warming learner is dropped for one bad round.
		 */
		private void keepLearnersWhileOffsetsAreUnknown() {
			for (GroupMember member : this.mayTakeWork) {
				if (this.leaving.containsKey(member.processId())) {
					continue;
				}
				for (TaskId task : member.previousStandby()) {
					if (isStateful(task) && !member.processId().equals(this.active.get(task))
							&& !this.learnerAt.containsKey(task)) {
						this.standbys.computeIfAbsent(task, (t) -> new TreeSet<>()).add(member.processId());
					}
				}
			}
		}

		/**
		 * {@code num.standby.replicas} per stateful task, on members that neither run it nor learn it and are not
		 * leaving: first those whose rack tags share the fewest values with the task's owner and its other replicas
		 * (so a zone can fail), then previous holders, the most caught up first, then the fewest standbys.
		 * <p>
		 * Only the few members that ran or hold a task report a lag of their own for it; every other member reports
		 * the task's whole changelog. So each task compares its reporters one by one, and of all the others only the
		 * one with the fewest standbys in each set of rack tags: linear in tasks, not in tasks times members.
		 */
		private void placeStandbys() {
			int replicas = this.settings.numStandbyReplicas();
			if (replicas == 0) {
				return;
			}
			StandbyCounts counts = new StandbyCounts(this.group.members().stream()
				.filter((member) -> !this.leaving.containsKey(member.processId()))
				.toList());
			this.standbys.values().forEach((holders) -> holders.forEach(counts::add));
			for (GroupTask task : this.group.tasks().values()) {
				if (!task.stateful()) {
					continue;
				}
				Set<ProcessId> holders = this.standbys.computeIfAbsent(task.id(), (t) -> new TreeSet<>());
				List<GroupMember> reporters = this.reportedBy.getOrDefault(task.id(), List.of());
				Set<ProcessId> reporterIds = reporters.stream().map(GroupMember::processId).collect(Collectors.toSet());
				while (holders.size() < replicas) {
					Set<ProcessId> replicasOfTask = new HashSet<>(holders);
					Optional.ofNullable(this.active.get(task.id())).ifPresent(replicasOfTask::add);
					Optional.ofNullable(this.learnerAt.get(task.id())).ifPresent(replicasOfTask::add);
					Comparator<GroupMember> order = Comparator
						.comparingLong((GroupMember member) -> sharedRackTags(member, replicasOfTask))
						.thenComparing((member) -> !member.holds(task.id()))
						.thenComparingLong((member) -> member.lag(task.id()))
						.thenComparingInt(counts::of)
						.thenComparing(GroupMember::processId);
					Optional<GroupMember> next = Stream
						.concat(reporters.stream()
							.filter((member) -> !this.leaving.containsKey(member.processId())
									&& !replicasOfTask.contains(member.processId())
									&& (!this.policyApplies || this.policy.mayRun(task, member))),
								counts.fewestPerRackTags((member) -> reporterIds.contains(member)
										|| replicasOfTask.contains(member)
										|| (this.policyApplies && !mayRun(task, member))))
						.min(order);
					if (next.isEmpty()) {
						break;
					}
					holders.add(next.get().processId());
					counts.add(next.get().processId());
				}
			}
		}

		private long sharedRackTags(GroupMember candidate, Set<ProcessId> replicas) {
			return candidate.rackTags().entrySet().stream()
				.filter((tag) -> replicas.stream()
					.anyMatch((replica) -> tag.getValue().equals(this.members.get(replica).rackTags().get(tag.getKey()))))
				.count();
		}

		/**
		 * Learners get a safety-net follow-up (members trigger the fast path themselves); a round without end offsets
		 * is retried soon; deferred balancing at once. A leaving member's deadline is not the leader's: the member
		 * keeps it on its own clock and leaves the group when it passes, and its tasks are then orphans.
		 */
		private Optional<Instant> followUp() {
			List<Instant> candidates = new ArrayList<>();
			Instant now = this.group.now();
			if (!this.learnerAt.isEmpty()) {
				candidates.add(now.plus(this.settings.learnerProbeInterval()));
			}
			if (this.unknownOffsets) {
				candidates.add(now.plus(UNKNOWN_OFFSETS_RETRY));
			}
			if (this.balanceDeferred || this.costDeferred) {
				candidates.add(now);
			}
			return candidates.stream().min(Comparator.naturalOrder());
		}

		private List<MemberPlan> memberPlans() {
			Map<ProcessId, SortedSet<TaskId>> activeByMember = byMember(this.active);
			Map<ProcessId, SortedSet<TaskId>> learnerByMember = byMember(this.learnerAt);
			Map<ProcessId, SortedSet<TaskId>> standbyByMember = new HashMap<>();
			this.standbys.forEach((task, holders) -> holders
				.forEach((holder) -> standbyByMember.computeIfAbsent(holder, (m) -> new TreeSet<>()).add(task)));
			List<MemberPlan> plans = new ArrayList<>();
			for (GroupMember member : this.members.values()) {
				ProcessId id = member.processId();
				SortedSet<TaskId> activeTasks = activeByMember.getOrDefault(id, new TreeSet<>());
				SortedMap<TaskId, Learner> learning = new TreeMap<>();
				learnerByMember.getOrDefault(id, new TreeSet<>()).forEach((task) -> {
					long lag = member.lag(task);
					learning.put(task, new Learner(task, lag, caughtUp(id, task)));
				});
				SortedSet<TaskId> beingLearned = activeTasks.stream()
					.filter(this.learnerAt::containsKey)
					.collect(Collectors.toCollection(TreeSet::new));
				SortedSet<TaskId> standbyTasks = standbyByMember.getOrDefault(id, new TreeSet<>());
				plans.add(new MemberPlan(id, member.instanceId(), member.incarnation(), activeTasks, learning,
						beingLearned, standbyTasks,
						this.leaving.containsKey(id),
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
		 * Move tasks to where the policy's costs are lowest (Kafka's rack-aware optimization: the sum of the costs, a
		 * move counting {@code moveCost}), each member ending with a task count between its balanced share and what it
		 * carries now, so the bucket stays as balanced as balancing left it. Only tasks nothing else decided this round
		 * move: orphans, which may go to any caught-up member (any member when none is), and tasks running on a member
		 * that took no work this round (what it gave would come back as an orphan next round, judged against loads
		 * without what it took, as in balancing). A move is made as every other: a stateful task moves now only to a caught-up member, else a learner warms
		 * up there first (within {@code max.warmup.replicas}), and the moves it makes room for wait with it unless the
		 * bucket stays within the balancing factor without it.
		 */
		private void placeByCost(boolean stateful) {
			if (this.noOtherMember || !this.policyApplies) {
				return;
			}
			Loads loads = stateful ? this.statefulLoads : this.statelessLoads;
			List<TaskId> movable = this.active.entrySet().stream()
				.filter((entry) -> isStateful(entry.getKey()) == stateful && mayTakeWork(entry.getValue())
						&& !this.learnerAt.containsKey(entry.getKey()) && !this.decided.contains(entry.getKey())
						&& (this.orphans.contains(entry.getKey())
								|| (entry.getValue().equals(this.runningOwner.get(entry.getKey()))
										&& !this.tookWork.contains(entry.getValue())
										&& !this.balancedOnto.contains(entry.getValue()))))
				.map(Map.Entry::getKey)
				.toList();
			boolean nothingToGain = movable.stream().allMatch((task) -> {
				GroupMember owner = this.members.get(this.active.get(task));
				GroupTask groupTask = this.group.tasks().get(task);
				return this.policy.mayRun(groupTask, owner) && this.policy.cost(groupTask, owner) == 0;
			});
			if (nothingToGain && loads.withinTolerance()) {
				return;
			}
			List<GroupMember> candidates = this.mayTakeWork;
			Map<ProcessId, Integer> index = new HashMap<>();
			for (int i = 0; i < candidates.size(); i++) {
				index.put(candidates.get(i).processId(), i);
			}
			int[] owner = movable.stream().mapToInt((task) -> index.get(this.active.get(task))).toArray();
			int[] count = candidates.stream().mapToInt((member) -> loads.count(member.processId())).toArray();
			long total = 0;
			long threads = 0;
			for (int i = 0; i < count.length; i++) {
				total += count[i];
				threads += candidates.get(i).capacity();
			}
			int[] fewest = new int[count.length];
			int[] most = new int[count.length];
			for (int i = 0; i < count.length; i++) {
				double share = total * (double) candidates.get(i).capacity() / threads;
				fewest[i] = (int) Math.floor(share);
				most[i] = (int) Math.ceil(share);
			}
			GroupTask[] tasks = movable.stream().map(this.group.tasks()::get).toArray(GroupTask[]::new);
			boolean[] warmOnly = new boolean[tasks.length];
			for (int i = 0; i < tasks.length; i++) {
				TaskId task = tasks[i].id();
				warmOnly[i] = stateful && this.orphans.contains(task)
						&& candidates.stream().anyMatch((member) -> caughtUp(member.processId(), task));
			}
			int[] capacity = candidates.stream().mapToInt(GroupMember::capacity).toArray();
			boolean[] orphan = new boolean[tasks.length];
			for (int i = 0; i < tasks.length; i++) {
				orphan[i] = this.orphans.contains(tasks[i].id());
			}
			// moving a running task costs a pause (and for a stateful one a warm-up); an orphan runs nowhere yet
			long moveCost = Math.max(1, this.settings.moveCost());
			CostOptimizer.Costs costs = (task, member) -> {
				GroupMember candidate = candidates.get(member);
				if (!this.policy.mayRun(tasks[task], candidate)
						|| (warmOnly[task] && !caughtUp(candidate.processId(), tasks[task].id()))
						|| (member != owner[task] && this.balancedFrom.contains(candidate.processId()))) {
					return CostOptimizer.NOT_ALLOWED;
				}
				// doubled, so that a member already holding state of the task wins a tie by one: a learner keeps its
				// task round after round while the costs do not change
				long cost = 2 * this.policy.cost(tasks[task], candidate);
				if (member == owner[task] || orphan[task]) {
					return cost;
				}
				return cost + 2 * moveCost - (candidate.holds(tasks[task].id()) ? 1 : 0);
			};
			spreadPiledOrphans(tasks, owner, count, most, costs, candidates, loads);
			// a warm orphan is the second round of a move: it moves again only where it is cheaper, never as another
			// task's partner, which could hand it back to the member it just left
			CostOptimizer.Costs costsOfMoves = (task, member) -> {
				long cost = costs.cost(task, member);
				if (warmOnly[task] && member != owner[task] && cost != CostOptimizer.NOT_ALLOWED
						&& this.policy.cost(tasks[task], candidates.get(member)) >= this.policy.cost(tasks[task],
								candidates.get(owner[task]))) {
					return CostOptimizer.NOT_ALLOWED;
				}
				return cost;
			};
			int[] low = new int[count.length];
			int[] high = new int[count.length];
			for (int i = 0; i < count.length; i++) {
				low[i] = Math.min(count[i], fewest[i]);
				high[i] = Math.max(count[i], most[i]);
			}
			int maxCycles = 4 * tasks.length + candidates.size();
			int[] placed = new CostOptimizer(owner, count, low, high, capacity, costsOfMoves).optimize(maxCycles);
			boolean balanced = loads.withinTolerance();
			for (int tries = 0; tries < count.length && balanced; tries++) {
				Loads after = after(loads, candidates, tasks, owner, placed, (task) -> true);
				if (after.withinTolerance()) {
					break;
				}
				// the cheapest placement within the shares leaves the bucket outside the factor: keep the counts of
				// the members that end the most and the least loaded, and look again
				double max = candidates.stream().mapToDouble((member) -> after.load(member.processId())).max().orElse(0);
				double min = candidates.stream().mapToDouble((member) -> after.load(member.processId())).min().orElse(0);
				for (int i = 0; i < count.length; i++) {
					double load = after.load(candidates.get(i).processId());
					if (load >= max - 1e-9 || load <= min + 1e-9) {
						low[i] = count[i];
						high[i] = count[i];
					}
				}
				placed = new CostOptimizer(owner, count, low, high, capacity, costsOfMoves).optimize(maxCycles);
			}
			Map<TaskId, ProcessId> orphansTo = new TreeMap<>();
			Map<TaskId, ProcessId> now = new TreeMap<>();
			Map<TaskId, ProcessId> warmUp = new TreeMap<>();
			for (int i = 0; i < tasks.length; i++) {
				if (placed[i] == owner[i]) {
					continue;
				}
				TaskId task = tasks[i].id();
				ProcessId to = candidates.get(placed[i]).processId();
				if (this.orphans.contains(task)) {
					orphansTo.put(task, to);
				}
				else if (!stateful || caughtUp(to, task)) {
					now.put(task, to);
				}
				else {
					warmUp.put(task, to);
				}
			}
			// the moves made now must leave the bucket within the factor while the learners of the others warm up:
			// else balancing would undo them in the next round
			boolean moveNow = warmUp.isEmpty() || !loads.withinTolerance()
					|| after(loads, candidates, tasks, owner, placed, (task) -> !warmUp.containsKey(tasks[task].id()))
						.withinTolerance();
			if (moveNow) {
				orphansTo.forEach((task, to) -> placeOrphanAgain(task, this.active.get(task), to, loads));
			}
			now.forEach((task, to) -> {
				ProcessId from = this.active.get(task);
				this.decided.add(task);
				if (moveNow) {
					loads.move(task, from, to);
					moveNow(task, Optional.of(from), to, "lower cost");
				}
				else {
					waitFor(task, from, to, WaitReason.WAITING_FOR_OTHER_LEARNERS);
				}
			});
			for (int i = 0; i < tasks.length && !this.costDeferred; i++) {
				GroupTask task = tasks[i];
				if (warmOnly[i]) {
					long there = this.policy.cost(task, this.members.get(this.active.get(task.id())));
					this.costDeferred = candidates.stream()
						.anyMatch((member) -> this.policy.mayRun(task, member) && this.policy.cost(task, member) < there);
				}
			}
			warmUp.forEach((task, to) -> {
				ProcessId from = this.active.get(task);
				this.decided.add(task);
				if (this.balancingLearners < this.settings.maxWarmupReplicas()) {
					this.balancingLearners++;
					this.learnerAt.put(task, to);
					waitFor(task, from, to, WaitReason.LEARNER_NOT_READY);
				}
				else {
					waitFor(task, from, to, WaitReason.WARMUP_CAP);
				}
			});
		}

		/**
		 * Orphans caught up on several members can pile up on one of them: the orphan step places them all against
		 * the loads before any lands, so that none is pushed back onto its former owner, and among members as loaded
		 * it prefers the cheaper. That happens in the round after two tasks swapped places for a lower cost where only
		 * one of them is cheaper at its new owner, and when several members are as cheap for many orphans. Spread such
		 * orphans from members above their share (rounded up) to members below it: where they cost no more, the
		 * cheapest first; then, while the bucket is outside the balancing factor, where they cost least more.
		 */
		private void spreadPiledOrphans(GroupTask[] tasks, int[] owner, int[] count, int[] most,
				CostOptimizer.Costs costs, List<GroupMember> candidates, Loads loads) {
			while (spreadOne(tasks, owner, count, most, costs, candidates, loads, false)) {
				// each pass moves one orphan
			}
			while (!loads.withinTolerance()
					&& spreadOne(tasks, owner, count, most, costs, candidates, loads, true)) {
				// each pass moves one orphan
			}
		}

		private boolean spreadOne(GroupTask[] tasks, int[] owner, int[] count, int[] most, CostOptimizer.Costs costs,
				List<GroupMember> candidates, Loads loads, boolean dearer) {
			int bestTask = -1;
			int bestMember = -1;
			long bestDelta = Long.MAX_VALUE;
			for (int task = 0; task < tasks.length; task++) {
				if (!this.orphans.contains(tasks[task].id()) || count[owner[task]] <= most[owner[task]]) {
					continue;
				}
				long here = costs.cost(task, owner[task]);
				for (int member = 0; member < count.length; member++) {
					long there = (count[member] < most[member]) ? costs.cost(task, member) : CostOptimizer.NOT_ALLOWED;
					if (there != CostOptimizer.NOT_ALLOWED && (dearer || there <= here) && there - here < bestDelta) {
						bestDelta = there - here;
						bestTask = task;
						bestMember = member;
					}
				}
			}
			if (bestTask == -1) {
				return false;
			}
			placeOrphanAgain(tasks[bestTask].id(), candidates.get(owner[bestTask]).processId(),
					candidates.get(bestMember).processId(), loads);
			count[owner[bestTask]]--;
			count[bestMember]++;
			owner[bestTask] = bestMember;
			return true;
		}

		private void placeOrphanAgain(TaskId task, ProcessId from, ProcessId to, Loads loads) {
			loads.move(task, from, to);
			this.tookWork.add(to);
			this.tookOrphans.add(to);
			this.moves.removeIf((move) -> move.task().equals(task));
			moveNow(task, Optional.empty(), to, "no running owner, lowest cost");
		}

		/**
		 * The bucket's loads after the optimizer's moves that {@code made} accepts.
		 */
		private static Loads after(Loads loads, List<GroupMember> candidates, GroupTask[] tasks, int[] owner,
				int[] placed, IntPredicate made) {
			Loads after = loads.copy();
			for (int i = 0; i < owner.length; i++) {
				if (placed[i] != owner[i] && made.test(i)) {
					after.move(tasks[i].id(), candidates.get(owner[i]).processId(), candidates.get(placed[i]).processId());
				}
			}
			return after;
		}

		/**
		 * The candidates the policy lets run a task; all of them, noted in the plan, when it lets none run it.
		 */
		private List<GroupMember> allowed(TaskId task, List<GroupMember> candidates) {
			if (!this.policyApplies) {
				return candidates;
			}
			GroupTask groupTask = this.group.tasks().get(task);
			List<GroupMember> allowed = candidates.stream()
				.filter((member) -> this.policy.mayRun(groupTask, member))
				.toList();
			if (allowed.isEmpty() && !candidates.isEmpty()) {
				this.outsidePolicy.add(task);
				return candidates;
			}
			return allowed;
		}

		private boolean mayRun(GroupTask task, ProcessId member) {
			return this.policy.mayRun(task, this.members.get(member));
		}

		/**
		 * A candidate's cost for a task, counted only for the lightest candidates and those that would carry at most
		 * the balancing factor times the least loaded member: a cheaper member is preferred while the bucket stays
		 * within the factor, so that placing by cost leaves balancing nothing to move again.
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
			return (member) -> (loads.loadWith(member.processId(), task) <= limit)
					? this.policy.cost(groupTask, member) : Long.MAX_VALUE;
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

		private void moveNow(TaskId task, Optional<ProcessId> from, ProcessId to, String why) {
			this.active.put(task, to);
			long lag = isStateful(task) ? this.members.get(to).lag(task) : 0;
			this.moves.add(new Move(task, from.map(this::name), name(to), why, lag));
		}

		private void waitFor(TaskId task, ProcessId from, ProcessId to, WaitReason reason) {
			this.waiting.add(new WaitingMove(task, name(from), name(to), reason));
		}

		private boolean caughtUp(ProcessId member, TaskId task) {
			if (!isStateful(task)) {
				return true;
			}
			long lag = this.members.get(member).lag(task);
			long acceptable = this.settings.acceptableRecoveryLag();
			return lag == GroupMember.RUNNING || (lag >= 0 && (acceptable == Long.MAX_VALUE || lag <= acceptable));
		}

		private boolean isStateful(TaskId task) {
			GroupTask groupTask = this.group.tasks().get(task);
			return groupTask != null && groupTask.stateful();
		}

		private boolean mayTakeWork(ProcessId member) {
			return this.noOtherMember || !this.leaving.containsKey(member);
		}

		private Loads loads(TaskId task) {
			return isStateful(task) ? this.statefulLoads : this.statelessLoads;
		}

		private String name(ProcessId member) {
			return this.members.get(member).instanceId();
		}

	}

	private record BalanceMove(TaskId task, ProcessId from, ProcessId to) {
	}

}
