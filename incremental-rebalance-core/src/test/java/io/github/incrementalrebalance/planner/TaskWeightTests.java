package io.github.incrementalrebalance.planner;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.github.incrementalrebalance.assignor.LearnerTaskAssignor;
import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.testkit.LogCapture;
import io.github.incrementalrebalance.testkit.RoundSimulator;
import io.github.incrementalrebalance.testkit.RoundSimulator.Round;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.AssignmentError;
import org.junit.jupiter.api.Test;
import ch.qos.logback.classic.Level;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tasks weighing the records in their changelogs ({@code incremental.rebalance.task.weight=state-size}), round by
 * round on the simulator: the leader reads the sizes, the default policy weighs each stateful task by them, and the
 * planner balances records per thread instead of tasks per thread.
 */
class TaskWeightTests {

	private static final long ACCEPTABLE_LAG = 10_000;

	private static final long BIG = 1_000_000;

	private static final long SMALL = 1_000;

	private static final Duration STEP = Duration.ofMillis(100);

	private static TaskId task(int partition) {
		return new TaskId(0, partition);
	}

	/**
	 * Two big stores on one member, two small ones on the other: even by count, uneven by state.
	 */
	private static RoundSimulator bigStoresTogether(String weight) {
		return new RoundSimulator().kafkaSettings(ACCEPTABLE_LAG, 2, 0)
			.learnerSetting(LearnerConfig.TASK_WEIGHT_CONFIG, weight)
			.statefulTasks(4, SMALL)
			.changelogRecords(task(0), BIG)
			.changelogRecords(task(1), BIG)
			.running("m1", 1, task(0), task(1))
			.running("m2", 1, task(2), task(3));
	}

	@Test
	void byCountTwoBigStoresOnOneMemberAreBalanced() {
		RoundSimulator sim = bigStoresTogether("count");

		Round round = sim.rebalance();

		assertThat(round.plan().moves()).isEmpty();
		assertThat(round.learning("m2")).isEmpty();
		assertThat(round.assigned("m1")).containsExactly(task(0), task(1));
	}

	@Test
	void byStateSizeOneOfTwoBigStoresMovesThroughALearnerAndNothingRestoresAtPromotion() {
		RoundSimulator sim = bigStoresTogether("state-size");

		Round first = sim.rebalance();
		assertThat(first.plan().moves()).as("nothing moves cold").isEmpty();
		assertThat(first.learning("m2")).hasSize(1).isSubsetOf(task(0), task(1));
		assertThat(first.learning("m1")).isEmpty();

		TaskId learned = first.learning("m2").first();
		sim.advanceUntilReady("m2", learned, STEP);
		List<Round> rounds = sim.rebalanceUntilSettled();
		Round last = rounds.get(rounds.size() - 1);
		assertThat(last.assigned("m2")).contains(learned).containsAll(Set.of(task(2), task(3)));
		assertThat(last.assigned("m1")).containsExactly((learned.equals(task(0))) ? task(1) : task(0));
		assertThat(last.restoredAtPromotion()).containsOnlyKeys(learned)
			.allSatisfy((task, restored) -> assertThat(restored).isLessThanOrEqualTo(ACCEPTABLE_LAG));
		Round after = sim.rebalance();
		assertThat(after.plan().moves()).as("settled: nothing moves again").isEmpty();
		assertThat(after.learning("m1")).isEmpty();
		assertThat(sim.assignorStatus().weightProblem()).isEmpty();
	}

	/**
	 * The seed places learners on members "with abundant resource": by state, that is the member with the least
	 * state per thread, not the one with the fewest tasks.
	 */
	@Test
	void drainLearnerGoesToTheMemberWithRoomWhichByCountIsTheFullestOne() {
		assertThat(drainLearnerOf("state-size")).isEqualTo("many-small");
		assertThat(drainLearnerOf("count")).isEqualTo("one-big");
	}

	private static String drainLearnerOf(String weight) {
		RoundSimulator sim = new RoundSimulator().kafkaSettings(ACCEPTABLE_LAG, 2, 0)
			.learnerSetting(LearnerConfig.TASK_WEIGHT_CONFIG, weight)
			.statefulTasks(6, SMALL)
			.changelogRecords(task(0), BIG)
			.changelogRecords(task(5), BIG)
			.running("leaving", 1, task(0))
			.running("many-small", 1, task(1), task(2), task(3), task(4))
			.running("one-big", 1, task(5));
		sim.requestsLeave("leaving", Optional.empty());

		Round round = sim.rebalance();

		assertThat(round.plan().moves()).isEmpty();
		List<String> learners = sim.memberNames().stream()
			.filter((member) -> round.learning(member).contains(task(0)))
			.toList();
		assertThat(learners).hasSize(1);
		return learners.get(0);
	}

	@Test
	void sizesThatCannotBeReadWeighEveryTaskOneAndSaySoUntilTheyCanAgain() {
		RoundSimulator sim = bigStoresTogether("state-size").changelogSizesFail("listOffsets timed out");

		try (LogCapture log = LogCapture.of(LearnerTaskAssignor.class)) {
			Round unweighed = sim.rebalance();
			assertThat(unweighed.error()).isEqualTo(AssignmentError.NONE);
			assertThat(unweighed.plan()).as("a learner plan, weighed by count").isNotNull();
			assertThat(unweighed.learning("m2")).isEmpty();
			assertThat(sim.assignorStatus().weighedByCount()).isOne();
			assertThat(sim.assignorStatus().weightProblem()).contains("listOffsets timed out");
			assertThat(log.messages(Level.WARN)).anySatisfy((message) -> assertThat(message).contains(
					"incremental.rebalance.task.weight=state-size is not applied this round: listOffsets timed out"));
		}

		Round weighed = sim.changelogSizesFail(null).rebalance();
		assertThat(weighed.learning("m2")).hasSize(1);
		assertThat(sim.assignorStatus().weightProblem()).isEmpty();
		assertThat(sim.assignorStatus().weighedByCount()).isOne();
	}

	@Test
	void customPolicyWeighsTasksAsItSays() {
		RoundSimulator sim = new RoundSimulator().kafkaSettings(ACCEPTABLE_LAG, 2, 0)
			.learnerSetting(LearnerConfig.PLACEMENT_POLICY_CLASS_CONFIG, FirstTaskWeighsTen.class.getName())
			.statefulTasks(6, 0)
			.joins("m1", 1)
			.joins("m2", 1);

		Round round = sim.rebalance();

		String heavy = round.assigned("m1").contains(task(0)) ? "m1" : "m2";
		assertThat(round.assigned(heavy)).as("the task weighing ten runs alone").containsExactly(task(0));
	}

	@Test
	void policyWeighingATaskLessThanOneFallsBackNamingThePolicyAndTheTask() {
		RoundSimulator sim = new RoundSimulator().kafkaSettings(ACCEPTABLE_LAG, 2, 0)
			.learnerSetting(LearnerConfig.PLACEMENT_POLICY_CLASS_CONFIG, WeighsNothing.class.getName())
			.statefulTasks(2, 0)
			.joins("m1", 1);

		Round round = sim.rebalance();

		assertThat(round.error()).isEqualTo(AssignmentError.NONE);
		assertThat(round.plan()).as("Kafka's sticky assignor's assignment, no plan").isNull();
		assertThat(sim.assignorStatus().lastFallbackReason()).hasValueSatisfying((reason) -> assertThat(reason)
			.contains(WeighsNothing.class.getName() + " weighs task 0_0 0: a weight is one or more"));
	}

	/**
	 * Weighs task {@code 0_0} as ten others.
	 */
	public static final class FirstTaskWeighsTen implements PlacementPolicy {

		@Override
		public long weight(GroupTask task) {
			return task.id().equals(new TaskId(0, 0)) ? 10 : 1;
		}

	}

	/**
	 * Weighs every task zero, which the planner refuses.
	 */
	public static final class WeighsNothing implements PlacementPolicy {

		@Override
		public long weight(GroupTask task) {
			return 0;
		}

	}

}
