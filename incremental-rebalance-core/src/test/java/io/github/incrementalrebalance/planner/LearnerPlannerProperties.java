package io.github.incrementalrebalance.planner;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.SortedSet;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.testkit.RoundSimulator;
import io.github.incrementalrebalance.testkit.RoundSimulator.Round;
import io.github.incrementalrebalance.testkit.RackTraffic;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.AssignmentError;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random groups (1-50 members of 1-4 threads, 1-500 stateful and stateless tasks, leaving members with and without
 * deadlines, leftover state, rounds without end offsets, members in mode upgrading) iterated round by round on the
 * simulator, learners warming up between rounds and leaving members acting on their plan; one round in six is led by
 * a member that does not know the previous round's plan. Every round must hold the invariants of the design; the
 * group must settle within {@code 2 x phases + 3} rounds (plus two per round without end offsets, and one per round
 * that revoked a task, to move it at once, while learners warmed up: the next round comes at once, before they are
 * ready, and gives them none of the time they need), where phases is
 * {@code ceil(moves / max.warmup.replicas)}, or the longest chain of moves through members that took work before they
 * gave some if longer (a member that took work gives none until that move ended, so a swap takes two phases), and
 * moves counts every task given to a new owner; no task goes back to the member it just left, and no learner is given
 * up for a colder one where the leader knows the previous plan (without it, a learner cannot be told from leftover
 * state, and balancing may take a task from the learner's member and re-place the learner). The second property adds racks (either strategy) and balancing factors 1.0, 1.5 and 3.0;
 * there, a leader that does not know the previous plan may let placing by cost undo a move balancing had to make out
 * of a task's rack, and a learner may be re-placed when the costs change, so with racks the first of those two checks
 * applies to the rounds whose leader knows the previous plan, the second not at all.
 * <p>
 * Every run draws new groups; jqwik prints the seed of a failure and replays it first on the next run. Groups once
 * found unsettled are replayed on every run by {@link #groupsThatOnceDidNotSettleNowDo()}.
 */
class LearnerPlannerProperties {

	private static final long STATE = 100_000;

	private static final long ACCEPTABLE_LAG = 10_000;

	private static final int TRAFFIC_COST = 10;

	@Property(tries = 150)
	void everyRoundHoldsTheInvariantsAndTheGroupSettles(@ForAll @IntRange(min = 1, max = 50) int memberCount,
			@ForAll @IntRange(min = 1, max = 500) int taskCount, @ForAll @IntRange(min = 1, max = 4) int maxThreads,
			@ForAll @IntRange(min = 1, max = 3) int maxWarmupReplicas, @ForAll long seed) {
		Random random = new Random(seed);
		settles(random, Scenario.random(random, memberCount, taskCount, maxThreads, maxWarmupReplicas, 2.0, 0, false),
				taskCount);
	}

	/**
	 * As above, with members and partitions in two or three racks under {@code rack.aware.assignment.strategy}
	 * {@code min_traffic} or {@code balance_subtopology}, the stateful tasks in two sub-topologies, and balancing
	 * factors other than the default; the group may take one warm-up phase more, for moves by cost after moves by
	 * warmth or load. Once settled, Kafka's own rack-aware optimization
	 * ({@code TaskAssignmentUtils.optimizeRackAwareActiveTasks}, with the same strategy) run on the result, keeping
	 * every member's count, finds nothing cheaper: the planner's placement is optimal by Kafka's measure, traffic plus
	 * moves; and under {@code balance_subtopology} no member holds more of a sub-topology than Kafka's cap.
	 */
	@Property(tries = 100)
	void withRacksAndOtherBalancingFactorsTheGroupSettlesWhereKafkaFindsNothingCheaper(
			@ForAll @IntRange(min = 1, max = 30) int memberCount, @ForAll @IntRange(min = 1, max = 300) int taskCount,
			@ForAll @IntRange(min = 1, max = 4) int maxThreads, @ForAll @IntRange(min = 1, max = 3) int maxWarmupReplicas,
			@ForAll("factors") double factor, @ForAll @IntRange(min = 2, max = 3) int racks, @ForAll long seed) {
		Random random = new Random(seed);
		settles(random,
				Scenario.random(random, memberCount, taskCount, maxThreads, maxWarmupReplicas, factor, racks, false),
				taskCount);
	}

	/**
	 * As the first, with tasks weighing the records in their changelogs ({@code incremental.rebalance.task.weight=
	 * state-size}): most changelogs small, one in five up to 200,000 records, one in twenty up to 3,000,000, and
	 * balancing factors 1.0, 1.5 and 3.0. The group settles within the bound with the records per thread within the
	 * factor; a planner that balanced task counts alone leaves the big stores where they pile up and fails it. That no
	 * learner is given up for a colder one is checked in the rounds whose leader knows the previous plan.
	 */
	@Property(tries = 100)
	void weighedByStateSizeTheGroupSettlesWithinTheFactorOfRecordsPerThread(
			@ForAll @IntRange(min = 1, max = 30) int memberCount, @ForAll @IntRange(min = 1, max = 200) int taskCount,
			@ForAll @IntRange(min = 1, max = 4) int maxThreads, @ForAll @IntRange(min = 1, max = 3) int maxWarmupReplicas,
			@ForAll("factors") double factor, @ForAll long seed) {
		Random random = new Random(seed);
		settles(random,
				Scenario.random(random, memberCount, taskCount, maxThreads, maxWarmupReplicas, factor, 0, true),
				taskCount);
	}

	@Provide
	Arbitrary<Double> factors() {
		return Arbitraries.of(1.0, 1.5, 3.0);
	}

	/**
	 * Groups the rack property found that did not settle, replayed under the strategy each ran with (null: drawn as
	 * the property draws it). Under {@code balance_subtopology}: balancing moved a task above its target's cap and
	 * the orphan step sent it back; a move by cost made to spread a sub-topology went back to the lighter member it
	 * left; an exchange for the spread moved one half at once and the other through a learner, and the first half was
	 * undone meanwhile; balancing, kept within the caps, could not reach the factor; the orphans of an exchange for
	 * the spread both went to the lighter member, one above its cap, and balancing moved one on. Under
	 * {@code min_traffic}: the cost step, looking again for a placement within the factor, pinned both bounds of the
	 * members it blamed and stateless tasks went back and forth between two rounds; balancing moved two tasks out of
	 * their racks onto empty members with two threads, and the cost step put them back, on a bucket outside the
	 * factor; the cost step, its cheapest placement outside the factor, barred every member a task made as loaded as
	 * the heaviest, and a learner went back and forth between two one-thread members, a round lost each time (21
	 * members, 9 tasks). Without racks: a drain's target chosen for its stale state before its load, which balancing then moved
	 * again, one round late (11 members, 2 tasks). Weighed by state size: a drain's task placed on a warm member,
	 * then swapped by balancing with a bigger one, two phases for three moves (3 members, 3 tasks; the bound counts
	 * the swap's two links); a member with a learner gave tasks away, and its learner, ready or nearly, was re-placed
	 * on a cold member (5 members, 8 tasks; a member with a learner gives none now), or the leader did not know the
	 * previous plan (5 members, 192 tasks; not checked then). Led without the previous plan, in either kind of group:
	 * balancing took two tasks from a member learning a task, and the learner, 7 % restored, went to a cold member (10
	 * members, 237 tasks; not checked then); a drain's learner that had restored nothing was placed on the member
	 * holding a standby as far behind, a lighter member than the last leader chose, which made the new owner of a
	 * balance move the heavier of the two and its orphan went back (10 members, 189 tasks; the orphan step now
	 * compares loads without the leaving members' tasks, and balancing keeps a move on those loads), and when
	 * balancing kept a move on those loads alone, more moves than before, the next round's loads re-placed a learner
	 * nearly ready (11 members, 56 tasks, weighed; a move must hold on both loads). A round that
	 * moved a stateless task at once beside learners warming up, their round after it short of time, was once counted
	 * to the leader's not knowing the previous plan; it happens with it too (9 members, 5 tasks, racks).
	 */
	@Example
	void groupsThatOnceDidNotSettleNowDo() {
		record Sample(int members, int tasks, int maxThreads, int maxWarmup, double factor, int racks, long seed,
				String strategy, boolean weighted) {

			Sample(int members, int tasks, int maxThreads, int maxWarmup, double factor, int racks, long seed,
					String strategy) {
				this(members, tasks, maxThreads, maxWarmup, factor, racks, seed, strategy, false);
			}

		}
		List<Sample> samples = List.of(new Sample(2, 13, 3, 1, 1.0, 2, 4, null),
				new Sample(17, 137, 2, 3, 1.5, 2, -1369396816, null),
				new Sample(30, 61, 4, 1, 3.0, 2, -229, "balance_subtopology"),
				new Sample(23, 172, 2, 2, 1.0, 3, 294840, "balance_subtopology"),
				new Sample(21, 14, 3, 1, 1.0, 3, Long.MAX_VALUE, null),
				new Sample(24, 16, 2, 1, 1.0, 3, 1152, null),
				new Sample(9, 191, 3, 3, 1.0, 3, -1923, null),
				new Sample(11, 2, 2, 2, 2.0, 0, -39088169, null),
				new Sample(3, 3, 4, 3, 1.0, 0, -3950242362L, null, true),
				new Sample(5, 192, 3, 3, 1.0, 0, -1028305908, null, true),
				new Sample(5, 8, 4, 2, 1.0, 0, -7991, null, true),
				new Sample(21, 9, 2, 3, 1.0, 3, -2058, null), new Sample(9, 5, 2, 3, 1.0, 2, 2, null),
				new Sample(10, 237, 2, 3, 2.0, 0, 50351, null),
				new Sample(10, 189, 1, 1, 3.0, 0, 4639066901042906862L, null, true),
				new Sample(11, 56, 1, 2, 1.0, 0, -4913090931546248101L, null, true));
		for (Sample sample : samples) {
			Random random = new Random(sample.seed());
			settles(random, Scenario.random(random, sample.members(), sample.tasks(), sample.maxThreads(),
					sample.maxWarmup(), sample.factor(), sample.racks(), sample.weighted(), sample.strategy()),
					sample.tasks());
		}
	}

	private static void settles(Random random, Scenario scenario, int taskCount) {
		int maxWarmupReplicas = scenario.maxWarmupReplicas;
		RoundSimulator sim = scenario.simulator;
		Round previous = null;
		boolean changedSincePrevious = true;
		int counted = 0;
		int unknownOffsetRounds = 0;
		int revokedBesideLearners = 0;
		int moves = 0;
		// the longest chain of stateful moves through members that took work before they gave some: a phase per link
		Map<String, Integer> chainInto = new HashMap<>();
		int longestChain = 0;
		Set<TaskId> revokedLastRound = new HashSet<>();
		// with racks nearly every task can move for a lower cost, through a learner each
		int maxRounds = (scenario.racks == 0 ? 2 : 4) * taskCount / maxWarmupReplicas + 40;
		for (int i = 0; i < maxRounds; i++) {
			Map<String, SortedSet<TaskId>> before = new HashMap<>();
			sim.memberNames().forEach((name) -> before.put(name, sim.activeTasks(name)));
			boolean unknownOffsets = random.nextInt(10) == 0;
			if (unknownOffsets) {
				sim.unknownOffsetsNextRound();
				unknownOffsetRounds++;
			}
			// one round in six is led by a member that has not read the previous round's plan yet
			boolean planKnown = random.nextInt(6) != 0;
			sim.previousPlanKnown(() -> planKnown);
			boolean nothingAsks = nothingAsks(sim, before, scenario);
			Round round = sim.rebalance();
			counted++;
			Plan plan = round.plan();
			if (round.revokedOnly() && learners(plan).stream().anyMatch((task) -> !readyLearner(plan, task))) {
				// the round after a revocation comes at once: learners warming up meanwhile are not ready yet
				revokedBesideLearners++;
			}
			checkInvariants(sim, round, before, scenario, unknownOffsets);
			if (nothingAsks) {
				assertThat(round.plan().moves()).as("moves when nothing asks").isEmpty();
				assertThat(learners(round.plan())).as("learners when nothing asks").isEmpty();
			}
			if (previous != null && !changedSincePrevious) {
				// with racks, a leader that does not know the previous round's plan may undo a move balancing had to
				// make out of a task's rack by placing the orphan by cost; and placing by cost re-places a learner
				// where the costs changed: known limits, checked there by settling and by the cost
				if (!unknownOffsets && (scenario.racks == 0 || planKnown)) {
					checkNoHandBack(previous, round);
				}
				// a leader that does not know the previous plan cannot tell a learner from leftover state: balancing
				// may take a task from the learner's member and re-place the learner
				if (scenario.racks == 0 && planKnown) {
					checkNoLearnerChurn(sim, previous, round);
				}
			}
			for (Move move : round.plan().moves()) {
				// a move of a running task shows twice: revoked, then placed as an orphan; count it once
				if (move.from().isPresent() || !revokedLastRound.contains(move.task())) {
					moves++;
					if (sim.isStateful(move.task())) {
						int chain = 1 + move.from().map((from) -> chainInto.getOrDefault(from, 0)).orElse(0);
						chainInto.merge(move.to(), chain, Math::max);
						longestChain = Math.max(longestChain, chain);
					}
				}
			}
			revokedLastRound.clear();
			round.revoked().values().forEach(revokedLastRound::addAll);
			if (settled(sim, round, scenario)) {
				// with racks a warm-up round may be short of max.warmup.replicas: a leaving member's tasks go to the
				// members warm on them first, and those placed by warmth or load may move once more, by cost
				int costPhase = (scenario.racks > 0) ? 2 : 0;
				// a member that took work gives none until that move ended: a swap takes two phases, however many
				// learners may warm up at once
				int phases = Math.max((int) Math.ceil(moves / (double) maxWarmupReplicas), longestChain);
				int bound = 2 * phases + 3 + costPhase + 2 * unknownOffsetRounds + revokedBesideLearners;
				assertThat(counted).as("rounds to settle %d moves", moves).isLessThanOrEqualTo(bound);
				if (scenario.racks > 0 && scenario.upgrading.isEmpty()) {
					checkNothingCheaper(sim);
					if (scenario.balanceSubtopologies) {
						checkSubtopologiesSpread(sim, round.plan());
					}
				}
				return;
			}
			previous = round;
			changedSincePrevious = false;
			if (round.revokedOnly()) {
				continue;
			}
			for (MemberPlan member : round.plan().members().values()) {
				if (member.handOver().isPresent()) {
					sim.leavesGroup(member.instanceId());
					changedSincePrevious = true;
				}
			}
			advanceUntilLearnersReady(sim, round.plan());
			for (String forced : sim.pastTheirDeadline()) {
				sim.leavesGroup(forced);
				changedSincePrevious = true;
			}
		}
		Round last = sim.rounds().get(sim.rounds().size() - 1);
		throw new AssertionError("the group did not settle in " + maxRounds + " rounds: " + last.plan().explain(last.at()));
	}

	private static void checkNothingCheaper(RoundSimulator sim) {
		long[] ours = RackTraffic.byKind(sim.applicationState(), TRAFFIC_COST);
		RackTraffic.Optimized kafka = RackTraffic.kafkaOptimizing(sim.applicationState(), TRAFFIC_COST, 1);
		assertThat(ours[0]).as("stateful tasks' traffic cost against Kafka's optimization of it (%s)", kafka)
			.isLessThanOrEqualTo(kafka.stateful() + kafka.movedStateful());
		assertThat(ours[1]).as("stateless tasks' traffic cost against Kafka's optimization of it (%s)", kafka)
			.isLessThanOrEqualTo(kafka.stateless());
	}

	/**
	 * {@code balance_subtopology} as Kafka caps it: no member runs more of a sub-topology's stateful tasks than its
	 * share of the stateful tasks of that sub-topology's tasks, rounded up.
	 */
	private static void checkSubtopologiesSpread(RoundSimulator sim, Plan plan) {
		Map<String, List<TaskId>> stateful = new HashMap<>();
		plan.members().values().forEach((member) -> stateful.put(member.instanceId(),
				member.active().stream().filter(sim::isStateful).toList()));
		int total = stateful.values().stream().mapToInt(List::size).sum();
		Map<Integer, Long> ofSubtopology = new HashMap<>();
		stateful.values()
			.forEach((tasks) -> tasks.forEach((task) -> ofSubtopology.merge(task.subtopology(), 1L, Long::sum)));
		stateful.forEach((member, tasks) -> {
			ofSubtopology.forEach((subtopology, count) -> {
				long cap = (long) Math.ceil((double) tasks.size() * count / total);
				assertThat(tasks.stream().filter((task) -> task.subtopology() == subtopology).count())
					.as("tasks of sub-topology %d on %s (%s)", subtopology, member, plan.explain(sim.now()))
					.isLessThanOrEqualTo(cap);
			});
		});
	}

	private static void checkInvariants(RoundSimulator sim, Round round, Map<String, SortedSet<TaskId>> before,
			Scenario scenario, boolean unknownOffsets) {
		assertThat(round.error()).isEqualTo(AssignmentError.NONE);
		assertThat(round.plan()).as("a learner plan, not the fallback").isNotNull();
		assertThat(sim.assignorStatus().fallbacks()).isZero();
		Plan plan = round.plan();
		assertThat(plan.members().values()).extracting(MemberPlan::instanceId)
			.containsExactlyInAnyOrderElementsOf(before.keySet());
		Map<TaskId, String> owner = new HashMap<>();
		for (MemberPlan member : plan.members().values()) {
			for (TaskId task : member.active()) {
				assertThat(owner.put(task, member.instanceId())).as("second owner of %s", task).isNull();
			}
		}
		assertThat(owner.keySet()).containsExactlyInAnyOrderElementsOf(sim.tasks());
		int balancingLearners = 0;
		for (MemberPlan member : plan.members().values()) {
			Set<TaskId> replicas = member.standbyTasks();
			if (member.leaving()) {
				assertThat(replicas).as("learners or standbys on leaving %s", member.instanceId()).isEmpty();
			}
			for (TaskId task : replicas) {
				assertThat(sim.isStateful(task)).as("standby of stateless %s", task).isTrue();
				assertThat(owner.get(task)).as("standby of %s on its owner", task).isNotEqualTo(member.instanceId());
			}
			for (TaskId task : member.learning().keySet()) {
				boolean drain = plan.member(owner.get(task)).map(MemberPlan::leaving).orElse(false);
				// max.warmup.replicas bounds the learners still warming up: a ready one only follows its changelog
				if (!drain && !member.learning().get(task).ready()) {
					balancingLearners++;
				}
			}
		}
		assertThat(balancingLearners).as("balancing learners").isLessThanOrEqualTo(scenario.maxWarmupReplicas);
		if (scenario.upgrading.stream().anyMatch(before::containsKey)) {
			assertThat(plan.mixedModes()).isTrue();
			assertThat(learners(plan)).as("learners while a member runs mode upgrading").isEmpty();
		}
		if (unknownOffsets) {
			before.forEach((name, tasks) -> tasks.stream().filter(sim::isStateful).forEach((task) -> assertThat(
					owner.get(task)).as("stateful %s moved in a round without end offsets", task).isEqualTo(name)));
		}
	}

	/**
	 * A task revoked from a member that is not leaving is not given back to it in the next round. Not checked in a
	 * round without end offsets: nothing then tells a caught-up learner from a cold member, and the orphan goes to
	 * the member holding its state, which can be its former owner (the safe choice: nothing to restore).
	 */
	private static void checkNoHandBack(Round previous, Round round) {
		previous.revoked().forEach((member, tasks) -> {
			boolean leaving = previous.plan().member(member).map(MemberPlan::leaving).orElse(true);
			if (!leaving) {
				for (TaskId task : tasks) {
					assertThat(round.plan().member(member).orElseThrow().active()).as("%s handed back to %s", task,
							member).doesNotContain(task);
				}
			}
		});
	}

	/**
	 * A learner of a task that has not moved stays on its member: its warm-up is never given up for a colder one. What may
	 * supersede it is at least as warm: a replica elsewhere that is caught up or no further behind (a standby, state kept
	 * from an earlier owner, or any member while the learner has not restored anything yet), a member that already kept a
	 * standby of the task (the two replicas swap names, neither restarts), or a warm task its member took this round
	 * instead, after which the load asks for the learner elsewhere.
	 */
	private static void checkNoLearnerChurn(RoundSimulator sim, Round previous, Round round) {
		Set<String> tookWarmTask = new HashSet<>();
		round.plan().moves().forEach((move) -> tookWarmTask.add(move.to()));
		for (MemberPlan member : previous.plan().members().values()) {
			for (TaskId task : member.learning().keySet()) {
				String owner = ownerOf(previous.plan(), task);
				boolean superseded = round.plan().members().values().stream()
					.anyMatch((other) -> other.learning().containsKey(task) && other.learning().get(task).ready()
							&& !other.instanceId().equals(member.instanceId()));
				if (!owner.equals(ownerOf(round.plan(), task)) || superseded
						|| tookWarmTask.contains(member.instanceId())) {
					continue;
				}
				long learnerLag = sim.lag(member.instanceId(), task);
				round.plan().members().values().stream()
					.filter((other) -> other.learning().containsKey(task))
					.filter((other) -> !previous.plan().member(other.instanceId())
						.map((before) -> before.standbyTasks().contains(task))
						.orElse(false))
					.filter((other) -> other.learning().get(task).lag() > learnerLag)
					.forEach((other) -> assertThat(other.instanceId()).as("learner of %s moved", task)
						.isEqualTo(member.instanceId()));
				if (round.plan().member(owner).map(MemberPlan::leaving).orElse(false)) {
					assertThat(round.plan().members().values()).as("drain learner of %s dropped", task)
						.anyMatch((m) -> m.learning().containsKey(task));
				}
			}
		}
	}

	private static boolean nothingAsks(RoundSimulator sim, Map<String, SortedSet<TaskId>> before, Scenario scenario) {
		if (!scenario.leaving.stream().filter(sim.memberNames()::contains).toList().isEmpty()
				|| scenario.upgrading.stream().anyMatch(sim.memberNames()::contains)) {
			return false;
		}
		Set<TaskId> owned = new HashSet<>();
		before.values().forEach(owned::addAll);
		if (!owned.containsAll(sim.tasks())) {
			return false;
		}
		// with racks, a balanced group may still ask for a cheaper placement, within the factor: the settling bound
		// checks that it stops asking
		return scenario.racks == 0 && withinTolerance(sim, before, true, scenario)
				&& withinTolerance(sim, before, false, scenario);
	}

	private static boolean settled(RoundSimulator sim, Round round, Scenario scenario) {
		Plan plan = round.plan();
		if (round.revokedOnly() || plan.members().values().stream().anyMatch(MemberPlan::leaving)) {
			return false;
		}
		if (scenario.upgrading.stream().anyMatch(sim.memberNames()::contains)) {
			return true;
		}
		if (scenario.racks > 0 && (plan.unknownOffsets() || !plan.moves().isEmpty())) {
			// a round without end offsets places nothing by cost; a round with moves leaves orphans to the next, which
			// may place them and their new neighbours by cost
			return false;
		}
		Map<String, SortedSet<TaskId>> actives = new HashMap<>();
		plan.members().values().forEach((member) -> actives.put(member.instanceId(), member.active()));
		return plan.waiting().isEmpty() && learners(plan).isEmpty() && withinTolerance(sim, actives, true, scenario)
				&& withinTolerance(sim, actives, false, scenario);
	}

	private static boolean withinTolerance(RoundSimulator sim, Map<String, SortedSet<TaskId>> actives,
			boolean stateful, Scenario scenario) {
		Map<ProcessId, Integer> capacities = new HashMap<>();
		actives.keySet().forEach((name) -> capacities.put(sim.processId(name), sim.threads(name)));
		Loads loads = new Loads(capacities, scenario.factor,
				(task) -> (scenario.weighted && stateful) ? Math.max(1, sim.endOffset(task)) : 1);
		actives.forEach((name, tasks) -> tasks.stream()
			.filter((task) -> sim.isStateful(task) == stateful)
			.forEach((task) -> loads.add(sim.processId(name), task)));
		return loads.withinTolerance();
	}

	private static List<TaskId> learners(Plan plan) {
		List<TaskId> learners = new ArrayList<>();
		plan.members().values().forEach((member) -> learners.addAll(member.learning().keySet()));
		return learners;
	}

	private static boolean readyLearner(Plan plan, TaskId task) {
		return plan.members().values().stream()
			.anyMatch((member) -> member.learning().containsKey(task) && member.learning().get(task).ready());
	}

	private static String ownerOf(Plan plan, TaskId task) {
		return plan.members().values().stream()
			.filter((member) -> member.active().contains(task))
			.map(MemberPlan::instanceId)
			.findFirst()
			.orElseThrow();
	}

	private static void advanceUntilLearnersReady(RoundSimulator sim, Plan plan) {
		for (int second = 0; second < 120; second++) {
			boolean allReady = plan.members().values().stream()
				.filter((member) -> sim.memberNames().contains(member.instanceId()))
				.allMatch((member) -> member.learning().keySet().stream()
					.allMatch((task) -> sim.lag(member.instanceId(), task) <= ACCEPTABLE_LAG));
			if (allReady && second > 0) {
				return;
			}
			sim.advance(Duration.ofSeconds(1));
		}
	}

	/**
	 * A random group and what its members do.
	 */
	private static final class Scenario {

		private final RoundSimulator simulator;

		private final int maxWarmupReplicas;

		private final double factor;

		private final int racks;

		private final boolean weighted;

		private boolean balanceSubtopologies;

		private final List<String> leaving = new ArrayList<>();

		private final List<String> upgrading = new ArrayList<>();

		private Scenario(RoundSimulator simulator, int maxWarmupReplicas, double factor, int racks, boolean weighted) {
			this.simulator = simulator;
			this.maxWarmupReplicas = maxWarmupReplicas;
			this.factor = factor;
			this.racks = racks;
			this.weighted = weighted;
		}

		/**
		 * A random group; {@code racks} 0 leaves rack-aware assignment off; {@code weighted} gives changelogs sizes
		 * from a thousand to three million records and weighs tasks by them, without writes, so that the weights
		 * stay what they are.
		 */
		static Scenario random(Random random, int memberCount, int taskCount, int maxThreads, int maxWarmup,
				double factor, int racks, boolean weighted) {
			return random(random, memberCount, taskCount, maxThreads, maxWarmup, factor, racks, weighted, null);
		}

		/**
		 * @param rackStrategy the {@code rack.aware.assignment.strategy} with racks, or null to draw it
		 */
		static Scenario random(Random random, int memberCount, int taskCount, int maxThreads, int maxWarmup,
				double factor, int racks, boolean weighted, String rackStrategy) {
			int statefulCount = random.nextInt(taskCount + 1);
			// a new application's changelogs are empty: every member is caught up without holding anything
			long state = (random.nextInt(5) == 0) ? 0 : STATE;
			RoundSimulator sim = new RoundSimulator()
				.kafkaSettings(ACCEPTABLE_LAG, maxWarmup, random.nextInt(4) == 0 ? 1 : 0)
				.learnerSetting(LearnerConfig.DRAIN_HAND_OVER_CONFIG,
						random.nextBoolean() ? "eager" : "conservative")
				.learnerSetting(LearnerConfig.BALANCING_FACTOR_CONFIG, factor)
				.statefulTasks((racks == 0) ? statefulCount : statefulCount / 2, state)
				.statelessTasks(taskCount - statefulCount)
				.writes((weighted || random.nextBoolean()) ? 0 : 1_000);
			if (weighted) {
				sim.learnerSetting(LearnerConfig.TASK_WEIGHT_CONFIG, "state-size");
				for (TaskId task : sim.tasks()) {
					if (sim.isStateful(task)) {
						int size = random.nextInt(20);
						sim.changelogRecords(task, (size == 0) ? 1_000_000 + random.nextInt(2_000_000)
								: (size < 5) ? 50_000 + random.nextInt(150_000) : 1_000 + random.nextInt(20_000));
					}
				}
			}
			Scenario scenario = new Scenario(sim, maxWarmup, factor, racks, weighted);
			List<String> rackNames = List.of("a", "b", "c").subList(0, Math.max(racks, 1));
			String drawn = random.nextBoolean() ? "min_traffic" : "balance_subtopology";
			String strategy = (rackStrategy != null) ? rackStrategy : drawn;
			if (racks > 0) {
				// two stateful sub-topologies, so that balance_subtopology has something to spread
				sim.statefulTasksOfSubtopology(2, statefulCount - statefulCount / 2, state);
				sim.rackAware(strategy, rackNames.toArray(String[]::new));
				scenario.balanceSubtopologies = strategy.equals("balance_subtopology");
			}
			List<String> names = new ArrayList<>();
			Map<String, List<TaskId>> running = new HashMap<>();
			for (int i = 0; i < memberCount; i++) {
				names.add("M" + i);
				running.put("M" + i, new ArrayList<>());
			}
			for (TaskId task : sim.tasks()) {
				if (random.nextInt(100) < 85) {
					// skewed towards the first members, so there is imbalance to fix
					int index = (int) (Math.pow(random.nextDouble(), 2) * memberCount);
					running.get(names.get(index)).add(task);
				}
			}
			boolean upgrading = memberCount > 1 && random.nextInt(10) == 0;
			for (int i = 0; i < memberCount; i++) {
				String name = names.get(i);
				int threads = 1 + random.nextInt(maxThreads);
				if (upgrading && i == memberCount - 1 && running.get(name).isEmpty()) {
					sim.joinsUpgrading(name, threads);
					scenario.upgrading.add(name);
				}
				else {
					sim.running(name, threads, running.get(name).toArray(TaskId[]::new));
				}
				if (racks > 0) {
					sim.rack(name, rackNames.get(random.nextInt(racks)));
				}
			}
			for (TaskId task : sim.tasks()) {
				if (sim.isStateful(task) && random.nextInt(5) == 0) {
					String holder = names.get(random.nextInt(memberCount));
					if (!running.get(holder).contains(task)) {
						long size = sim.endOffset(task);
						sim.holds(holder, task, (size == 0) ? 0 : random.nextLong(size));
					}
				}
			}
			for (int i = 1; i < memberCount; i++) {
				if (random.nextInt(100) < 15) {
					String name = names.get(i);
					int deadline = random.nextInt(5);
					Optional<Duration> timeout = (deadline == 0) ? Optional.of(Duration.ZERO)
							: (deadline == 1) ? Optional.of(Duration.ofSeconds(10 + random.nextInt(50))) : Optional.empty();
					sim.requestsLeave(name, timeout);
					scenario.leaving.add(name);
				}
			}
			return scenario;
		}

	}

}
