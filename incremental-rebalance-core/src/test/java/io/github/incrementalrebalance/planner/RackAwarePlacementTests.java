package io.github.incrementalrebalance.planner;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.testkit.LogCapture;
import io.github.incrementalrebalance.testkit.RackTraffic;
import io.github.incrementalrebalance.testkit.RoundSimulator;
import io.github.incrementalrebalance.testkit.RoundSimulator.Round;
import io.github.incrementalrebalance.assignor.LearnerTaskAssignor;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.AssignmentError;
import org.junit.jupiter.api.Test;
import ch.qos.logback.classic.Level;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rack-aware placement ({@code rack.aware.assignment.strategy=min_traffic}) and placement policies named by class,
 * round by round on the simulator. Partition {@code p} of every topic has its replicas in rack {@code a} when
 * {@code p} is even, in rack {@code b} when odd; a task costs 10 for each of its two partitions (source and changelog)
 * outside its member's rack.
 */
class RackAwarePlacementTests {

	private static final long STATE = 100_000;

	private static final long ACCEPTABLE_LAG = 10_000;

	private static final Duration STEP = Duration.ofMillis(100);

	private static TaskId task(int partition) {
		return new TaskId(0, partition);
	}

	@Test
	void newApplicationsTasksLandInTheRackOfTheirPartitionsAsFarAsTheBalanceAllows() {
		RoundSimulator sim = new RoundSimulator().kafkaSettings(ACCEPTABLE_LAG, 2, 0)
			.statefulTasks(6, 0)
			.rackAware("min_traffic", "a", "b")
			.joins("a1", 1)
			.joins("a2", 1)
			.joins("b1", 1)
			.rack("a1", "a")
			.rack("a2", "a")
			.rack("b1", "b");
		long kafka = RackTraffic.ofKafka(sim.applicationState(), 10).cost();

		List<Round> rounds = sim.rebalanceUntilSettled();

		Round last = rounds.get(rounds.size() - 1);
		assertThat(last.error()).isEqualTo(AssignmentError.NONE);
		assertThat(last.assigned("b1")).hasSize(2).allSatisfy((task) -> assertThat(task.partition() % 2).isOne());
		assertThat(last.assigned("a1")).hasSize(2);
		assertThat(last.assigned("a2")).hasSize(2);
		long ours = RackTraffic.ofRunning(sim.applicationState(), 10);
		assertThat(ours).as("one of the three rack-b tasks runs in rack a").isEqualTo(20).isLessThanOrEqualTo(kafka);
		assertThat(last.plan().placementCost()).isEqualTo(ours);
		assertThat(sim.rebalance().plan().moves()).as("settled: nothing moves again").isEmpty();
	}

	@Test
	void runningTasksInTheWrongRackSwapThroughLearnersAndNothingRestoresAtPromotion() {
		RoundSimulator sim = new RoundSimulator().kafkaSettings(ACCEPTABLE_LAG, 2, 0)
			.statefulTasks(4, STATE)
			.rackAware("min_traffic", "a", "b")
			.running("a1", 1, task(0), task(1))
			.running("b1", 1, task(2), task(3))
			.rack("a1", "a")
			.rack("b1", "b");

		Round first = sim.rebalance();
		assertThat(first.plan().moves()).as("nothing moves cold").isEmpty();
		assertThat(first.learning("b1")).containsExactly(task(1));
		assertThat(first.learning("a1")).containsExactly(task(2));
		assertThat(first.plan().placementCost()).isEqualTo(40);

		sim.advanceUntilReady("b1", task(1), STEP).advanceUntilReady("a1", task(2), STEP);
		List<Round> rounds = sim.rebalanceUntilSettled();
		Round last = rounds.get(rounds.size() - 1);
		assertThat(last.assigned("a1")).containsExactly(task(0), task(2));
		assertThat(last.assigned("b1")).containsExactly(task(1), task(3));
		assertThat(last.restoredAtPromotion()).containsOnlyKeys(task(1), task(2))
			.allSatisfy((task, restored) -> assertThat(restored).isLessThanOrEqualTo(ACCEPTABLE_LAG));
		assertThat(last.plan().placementCost()).isZero();
		assertThat(RackTraffic.ofRunning(sim.applicationState(), 10)).isZero();
	}

	@Test
	void leavingMembersTasksAreLearnedInTheirRackWhileTheBalanceAllows() {
		RoundSimulator sim = new RoundSimulator().kafkaSettings(ACCEPTABLE_LAG, 2, 0)
			.statefulTasks(6, STATE)
			.rackAware("min_traffic", "a", "b")
			.running("a1", 1, task(0), task(2))
			.running("a2", 1, task(4))
			.running("b1", 1, task(5))
			.running("b2", 1, task(1), task(3))
			.rack("a1", "a")
			.rack("a2", "a")
			.rack("b1", "b")
			.rack("b2", "b");

		sim.requestsLeave("b2", Optional.empty());
		Round first = sim.rebalance();
		Set<TaskId> learned = new HashSet<>(first.learning("b1"));
		learned.addAll(first.learning("a2"));
		assertThat(learned).containsExactlyInAnyOrder(task(1), task(3));
		assertThat(first.learning("b1")).as("the rack-b member learns one, as many as keeps the balance").hasSize(1);
		assertThat(first.learning("a2")).hasSize(1);

		first.learning("b1").forEach((task) -> sim.advanceUntilReady("b1", task, STEP));
		first.learning("a2").forEach((task) -> sim.advanceUntilReady("a2", task, STEP));
		Round ready = sim.rebalance();
		assertThat(ready.plan().member("b2").orElseThrow().handOver()).contains(HandOverReason.LEARNERS_READY);
		sim.leavesGroup("b2");
		List<Round> rounds = sim.rebalanceUntilSettled();
		Round last = rounds.get(rounds.size() - 1);
		assertThat(last.restoredAtPromotion()).containsOnlyKeys(task(1), task(3))
			.allSatisfy((task, restored) -> assertThat(restored).isLessThanOrEqualTo(ACCEPTABLE_LAG));
		assertThat(last.plan().moves()).extracting(Move::task).containsExactlyInAnyOrder(task(1), task(3));
		assertThat(sim.rebalance().plan().moves()).as("the hand-over left nothing to move again").isEmpty();
		assertThat(RackTraffic.ofRunning(sim.applicationState(), 10))
			.isLessThanOrEqualTo(RackTraffic.ofKafka(sim.applicationState(), 10).cost());
	}

	/**
	 * Two sub-topologies of three stateful tasks each, every task running in its partitions' rack, two tasks a member:
	 * the cheapest placement already, but each rack-a member runs both rack-a tasks of one sub-topology. Kafka's
	 * {@code balance_subtopology} gives no member more of a sub-topology than its share (here one); {@code min_traffic}
	 * leaves the group as it is.
	 */
	@Test
	void balanceSubtopologySpreadsEachSubTopologyThroughLearnersWhereMinTrafficLeavesItPiled() {
		assertThat(subtopologiesPiled("min_traffic").rebalance().plan().moves()).isEmpty();

		RoundSimulator sim = subtopologiesPiled("balance_subtopology");
		Round first = sim.rebalance();
		assertThat(first.plan().moves()).as("nothing moves cold").isEmpty();
		assertThat(first.learning("a1")).singleElement().satisfies((task) -> assertThat(task.subtopology()).isEqualTo(2));
		assertThat(first.learning("a2")).singleElement().satisfies((task) -> assertThat(task.subtopology()).isZero());
		for (String member : List.of("a1", "a2")) {
			first.learning(member).forEach((task) -> sim.advanceUntilReady(member, task, STEP));
		}
		List<Round> rounds = sim.rebalanceUntilSettled();
		Round last = rounds.get(rounds.size() - 1);
		for (String member : List.of("a1", "a2", "b1")) {
			assertThat(last.assigned(member)).extracting(TaskId::subtopology).as(member).containsExactlyInAnyOrder(0, 2);
		}
		assertThat(last.restoredAtPromotion()).hasSize(2)
			.allSatisfy((task, restored) -> assertThat(restored).isLessThanOrEqualTo(ACCEPTABLE_LAG));
		assertThat(RackTraffic.ofRunning(sim.applicationState(), 10)).isZero();
		Round after = sim.rebalance();
		assertThat(after.plan().moves()).as("settled: nothing moves again").isEmpty();
		assertThat(after.learning("a1")).isEmpty();
		assertThat(after.learning("a2")).isEmpty();
	}

	private static RoundSimulator subtopologiesPiled(String strategy) {
		return new RoundSimulator().kafkaSettings(ACCEPTABLE_LAG, 2, 0)
			.statefulTasks(3, STATE)
			.statefulTasksOfSubtopology(2, 3, STATE)
			.rackAware(strategy, "a", "b")
			.running("a1", 1, task(0), task(2))
			.running("a2", 1, new TaskId(2, 0), new TaskId(2, 2))
			.running("b1", 1, task(1), new TaskId(2, 1))
			.rack("a1", "a")
			.rack("a2", "a")
			.rack("b1", "b");
	}

	@Test
	void policyNamedByClassKeepsTasksTheirLearnersAndStandbysOffTheMembersItExcludes() {
		RoundSimulator sim = new RoundSimulator().kafkaSettings(ACCEPTABLE_LAG, 2, 1)
			.learnerSetting(LearnerConfig.PLACEMENT_POLICY_CLASS_CONFIG, StatefulTasksOffSmallHosts.class.getName())
			.statefulTasks(4, STATE)
			.statelessTasks(3)
			.running("big1", 1, task(0), new TaskId(1, 0))
			.running("small", 1, task(1), task(2), new TaskId(1, 1))
			.running("big2", 1, task(3), new TaskId(1, 2))
			.tag("small", "host-class", "small");

		Round first = sim.rebalance();
		assertThat(first.plan().moves()).as("nothing moves cold").isEmpty();
		Set<TaskId> learned = new HashSet<>(first.learning("big1"));
		learned.addAll(first.learning("big2"));
		assertThat(learned).containsExactlyInAnyOrder(task(1), task(2));
		assertThat(first.plan().member("small").orElseThrow().standbyTasks()).isEmpty();

		for (String member : List.of("big1", "big2")) {
			first.learning(member).forEach((task) -> sim.advanceUntilReady(member, task, STEP));
		}
		List<Round> rounds = sim.rebalanceUntilSettled();
		Round last = rounds.get(rounds.size() - 1);
		assertThat(last.assigned("small")).noneMatch(sim::isStateful);
		assertThat(last.plan().member("small").orElseThrow().standbyTasks()).isEmpty();
		assertThat(last.restoredAtPromotion()).containsOnlyKeys(task(1), task(2))
			.allSatisfy((task, restored) -> assertThat(restored).isLessThanOrEqualTo(ACCEPTABLE_LAG));
		assertThat(last.plan().outsidePolicy()).isEmpty();
	}

	@Test
	void taskNoMemberMayRunIsPlacedAnywayAndTheAssignorSaysSo() {
		RoundSimulator sim = new RoundSimulator().kafkaSettings(ACCEPTABLE_LAG, 2, 0)
			.learnerSetting(LearnerConfig.PLACEMENT_POLICY_CLASS_CONFIG, FirstTaskNowhere.class.getName())
			.statefulTasks(2, 0)
			.joins("m1", 1)
			.joins("m2", 1);
		try (LogCapture log = LogCapture.of(LearnerTaskAssignor.class)) {
			Round round = sim.rebalance();
			assertThat(round.error()).isEqualTo(AssignmentError.NONE);
			assertThat(round.plan().outsidePolicy()).containsExactly(task(0));
			assertThat(round.plan().explain(round.at())).contains("no member may run [0_0]");
			assertThat(log.messages(Level.WARN)).anySatisfy((message) -> assertThat(message)
				.contains("The placement policy lets no member run [0_0]: placed anyway"));
		}
	}

	@Test
	void policyThatCannotBeMadeFallsBackToKafkasAssignorAndSaysWhy() {
		RoundSimulator sim = new RoundSimulator().kafkaSettings(ACCEPTABLE_LAG, 2, 0)
			.learnerSetting(LearnerConfig.PLACEMENT_POLICY_CLASS_CONFIG, NoDefaultConstructor.class.getName())
			.statefulTasks(2, 0)
			.joins("m1", 1);
		Round round = sim.rebalance();
		assertThat(round.error()).isEqualTo(AssignmentError.NONE);
		assertThat(round.plan()).as("Kafka's sticky assignor's assignment, no plan").isNull();
		assertThat(sim.assignorStatus().fallbacks()).isOne();
		assertThat(sim.assignorStatus().lastFallbackReason()).hasValueSatisfying((reason) -> assertThat(reason).contains("the placement policy could not be made"));
	}

	/**
	 * Keeps stateful tasks off members tagged {@code host-class=small}, as a README example would.
	 */
	public static final class StatefulTasksOffSmallHosts implements PlacementPolicy {

		@Override
		public boolean mayRun(GroupTask task, GroupMember member) {
			return !task.stateful() || !"small".equals(member.clientTags().get("host-class"));
		}

	}

	/**
	 * Lets no member run task {@code 0_0}.
	 */
	public static final class FirstTaskNowhere implements PlacementPolicy {

		@Override
		public boolean mayRun(GroupTask task, GroupMember member) {
			return !task.id().equals(new TaskId(0, 0));
		}

	}

	/**
	 * Cannot be made by class name.
	 */
	public static final class NoDefaultConstructor implements PlacementPolicy {

		public NoDefaultConstructor(String unused) {
		}

	}

}
