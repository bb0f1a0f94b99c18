package io.github.incrementalrebalance.planner;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.testkit.RoundSimulator;
import io.github.incrementalrebalance.testkit.RoundSimulator.Round;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.AssignmentError;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The walkthroughs of the seed design notes, round by round on the Kafka-faithful simulator. Where the seed picks
 * arbitrarily which member learns which task, the tests assert properties, not ids. One decision differs from seed
 * 003: a running task moves in two rounds (revoke, then assign), and a leaving member whose learners are all ready
 * leaves the group instead, so one rebalance hands all its tasks over.
 */
class SeedWalkthroughTests {

	private static final long STATE = 1_000_000;

	private static final long ACCEPTABLE_LAG = 10_000;

	private static final Duration STEP = Duration.ofMillis(100);

	private static final TaskId T1 = new TaskId(0, 0);

	private static final TaskId T2 = new TaskId(0, 1);

	private static final TaskId T3 = new TaskId(0, 2);

	private static final TaskId T4 = new TaskId(0, 3);

	private static final TaskId T5 = new TaskId(0, 4);

	@Test
	void scaleDownConservativeHandsBothTasksOverInOneRebalanceAfterTheLearnersAreReady() {
		RoundSimulator sim = seedGroup(LearnerRebalance.CONSERVATIVE).restoreRate("S1", 20_000);

		sim.requestsLeave("S2", Optional.empty());
		Round first = valid(sim.rebalance());
		assertThat(first.assigned("S2")).containsExactly(T3, T4);
		assertThat(first.learning("S2")).isEmpty();
		assertThat(learnedBy(first, "S1", "S3")).containsExactlyInAnyOrder(T3, T4);
		assertThat(first.learning("S1")).hasSize(1);
		assertThat(first.learning("S3")).hasSize(1);
		assertThat(first.revoked()).isEmpty();

		TaskId fast = first.learning("S3").first();
		TaskId slow = first.learning("S1").first();
		sim.advanceUntilReady("S3", fast, STEP);
		Round fastReady = valid(sim.rebalance());
		assertThat(fastReady.assigned("S2")).as("conservative: nothing moves while a learner is not ready")
			.containsExactly(T3, T4);
		assertThat(fastReady.plan().waiting()).extracting(WaitingMove::reason)
			.containsExactlyInAnyOrder(WaitReason.WAITING_FOR_OTHER_LEARNERS, WaitReason.LEARNER_NOT_READY);

		sim.advanceUntilReady("S1", slow, STEP);
		Round allReady = valid(sim.rebalance());
		assertThat(allReady.plan().member("S2").orElseThrow().handOver()).contains(HandOverReason.LEARNERS_READY);
		assertThat(allReady.revoked()).as("a hand-over revokes nothing: the leaving member leaves the group").isEmpty();

		sim.leavesGroup("S2");
		Round handedOver = valid(sim.rebalance());
		assertThat(handedOver.assigned("S1")).contains(T1, T2, slow);
		assertThat(handedOver.assigned("S3")).contains(T5, fast);
		assertThat(handedOver.restoredAtPromotion()).containsOnlyKeys(T3, T4)
			.allSatisfy((task, restored) -> assertThat(restored).isLessThanOrEqualTo(ACCEPTABLE_LAG));
		assertThat(handedOver.revokedOnly()).isFalse();
		assertThat(sim.rounds()).as("leave, fast learner ready, all ready, after the hand-over").hasSize(4);
	}

	/**
	 * The leader's control topic has not been readable for its timeout while S2 drains: the leave may have been
	 * cancelled since, so nothing of S2 moves, though its learners are ready, until the topic is read again.
	 */
	@Test
	void noHandOverWhileTheLeaveRequestsMayBeOutOfDate() {
		RoundSimulator sim = seedGroup(LearnerRebalance.EAGER);
		sim.requestsLeave("S2", Optional.empty());
		Round first = valid(sim.rebalance());
		sim.advanceUntilReady("S3", first.learning("S3").first(), STEP);
		sim.advanceUntilReady("S1", first.learning("S1").first(), STEP);

		Round outOfDate = valid(sim.controlTopicOutOfDate(Optional.of("control topic cannot be read")).rebalance());
		assertThat(outOfDate.plan().member("S2").orElseThrow().handOver()).isEmpty();
		assertThat(outOfDate.assigned("S2")).as("its tasks stay, learners ready or not").containsExactly(T3, T4);
		assertThat(outOfDate.plan().waiting()).extracting(WaitingMove::reason)
			.containsOnly(WaitReason.LEAVE_REQUESTS_OUT_OF_DATE);
		assertThat(outOfDate.plan().explain(sim.now())).contains("leave requests out of date");
		assertThat(outOfDate.plan().followUp()).as("nobody else asks for the round the hand-over waits for")
			.contains(sim.now().plus(Group.FIRST_RETRY));

		Round readAgain = valid(sim.controlTopicOutOfDate(Optional.empty()).rebalance());
		assertThat(readAgain.plan().member("S2").orElseThrow().handOver()).contains(HandOverReason.LEARNERS_READY);
	}

	@Test
	void scaleDownEagerMovesEachTaskAsItsLearnerIsReady() {
		RoundSimulator sim = seedGroup(LearnerRebalance.EAGER).restoreRate("S1", 20_000);

		sim.requestsLeave("S2", Optional.empty());
		Round first = valid(sim.rebalance());
		TaskId fast = first.learning("S3").first();
		TaskId slow = first.learning("S1").first();

		sim.advanceUntilReady("S3", fast, STEP);
		Round fastReady = valid(sim.rebalance());
		assertThat(fastReady.revoked("S2")).containsExactly(fast);
		assertThat(fastReady.assigned("S2")).containsExactly(slow);
		assertThat(fastReady.revokedOnly()).isTrue();
		Round fastAssigned = valid(sim.rebalance());
		assertThat(fastAssigned.assigned("S3")).contains(fast);
		assertThat(fastAssigned.restoredAtPromotion().get(fast)).isLessThanOrEqualTo(ACCEPTABLE_LAG);
		assertThat(fastAssigned.learning("S1")).containsExactly(slow);

		sim.advanceUntilReady("S1", slow, STEP);
		Round slowReady = valid(sim.rebalance());
		assertThat(slowReady.plan().member("S2").orElseThrow().handOver()).contains(HandOverReason.LEARNERS_READY);
		sim.leavesGroup("S2");
		Round handedOver = valid(sim.rebalance());
		assertThat(handedOver.assigned("S1")).contains(slow);
		assertThat(handedOver.restoredAtPromotion().get(slow)).isLessThanOrEqualTo(ACCEPTABLE_LAG);
		assertThat(sim.rounds()).as("leave, revoke fast, assign fast, hand-over, after the hand-over").hasSize(5);
	}

	@Test
	void scaleUpPlacesExactlyOneLearnerFromAMostLoadedMemberOnTheNewcomer() {
		RoundSimulator sim = seedGroup(LearnerRebalance.CONSERVATIVE);
		sim.joins("S4", 1);

		Round first = valid(sim.rebalance());
		assertThat(first.learning("S4")).hasSize(1);
		TaskId learned = first.learning("S4").first();
		assertThat(learned).isIn(T1, T2, T3, T4);
		assertThat(first.learning("S1")).isEmpty();
		assertThat(first.learning("S2")).isEmpty();
		assertThat(first.learning("S3")).isEmpty();
		assertThat(first.revoked()).isEmpty();
		assertThat(first.plan().followUp()).isPresent();

		sim.advanceUntilReady("S4", learned, STEP);
		Round revoke = valid(sim.rebalance());
		assertThat(revoke.revokedOnly()).isTrue();
		Round assign = valid(sim.rebalance());
		assertThat(assign.assigned("S4")).containsExactly(learned);
		assertThat(assign.restoredAtPromotion().get(learned)).isLessThanOrEqualTo(ACCEPTABLE_LAG);
		assertThat(loads(assign)).containsExactlyInAnyOrder(1, 1, 1, 2);
		assertThat(assign.plan().waiting()).isEmpty();
		assertThat(assign.plan().followUp()).as("no learner left, no follow-up").isEmpty();
	}

	@Test
	void leaderCrashDuringScalingGivesTheLearnedTaskToItsLearner() {
		RoundSimulator sim = seedGroup(LearnerRebalance.CONSERVATIVE);
		sim.joins("S4", 1);
		Round first = valid(sim.rebalance());
		TaskId learned = first.learning("S4").first();
		String owner = ownerOf(first, learned);
		sim.advance(Duration.ofMillis(500));

		sim.leavesGroup(owner);
		Round afterCrash = valid(sim.rebalance());

		assertThat(afterCrash.assigned("S4")).as("the half-warm learner is the best shot").contains(learned);
		assertThat(afterCrash.restoredAtPromotion().get(learned)).isLessThan(STATE);
		assertThat(allAssigned(afterCrash)).containsExactlyInAnyOrder(T1, T2, T3, T4, T5);
		assertThat(loads(afterCrash)).allSatisfy((load) -> assertThat(load).isBetween(1, 2));
		assertThat(afterCrash.revokedOnly()).isFalse();
	}

	@Test
	void leaderTransferBeforeScalingEndsWithinTheFactorOnceLearnersAreReady() {
		RoundSimulator sim = new RoundSimulator().kafkaSettings(ACCEPTABLE_LAG, 2, 0)
			.statefulTasks(5, STATE)
			.running("S1", 1, T1)
			.running("S2", 1, T2, T3, T4, T5)
			.joins("S3", 1);
		sim.joins("S4", 1);
		sim.leavesGroup("S1");

		Round first = valid(sim.rebalance());
		assertThat(allAssigned(first)).containsExactlyInAnyOrder(T1, T2, T3, T4, T5);
		assertThat(first.learning("S3")).hasSize(1);
		assertThat(first.learning("S4")).hasSize(1);
		assertThat(first.plan().followUp()).isPresent();

		sim.advance(Duration.ofSeconds(30));
		List<Round> settled = sim.rebalanceUntilSettled();
		Round last = settled.get(settled.size() - 1);
		assertThat(settled).hasSize(2);
		assertThat(loads(last)).containsExactlyInAnyOrder(2, 2, 1);
		assertThat(last.restoredAtPromotion()).allSatisfy((task, restored) -> assertThat(restored)
			.isLessThanOrEqualTo(ACCEPTABLE_LAG));
		assertThat(last.plan().waiting()).isEmpty();
	}

	@Test
	void memberInModeUpgradingMeansNoLearnersAndALeavingMemberLeavesAtOnce() {
		RoundSimulator sim = seedGroup(LearnerRebalance.CONSERVATIVE).joinsUpgrading("S4", 1);
		sim.requestsLeave("S2", Optional.empty());

		Round round = valid(sim.rebalance());

		assertThat(round.plan().mixedModes()).isTrue();
		assertThat(round.plan().members().values()).allSatisfy((member) -> assertThat(member.learning()).isEmpty());
		assertThat(round.plan().member("S2").orElseThrow().handOver()).contains(HandOverReason.LEARNERS_UNAVAILABLE);
		assertThat(round.assigned("S2")).as("it keeps its tasks until it leaves").containsExactly(T3, T4);
		assertThat(round.plan().explain(sim.now())).contains("a member runs mode upgrading: no learners");
	}

	@Test
	void onlyMemberAskedToLeaveLeavesAtOnce() {
		RoundSimulator sim = new RoundSimulator().statefulTasks(2, STATE).running("S1", 1, T1, T2);
		sim.requestsLeave("S1", Optional.empty());

		Round round = valid(sim.rebalance());

		assertThat(round.plan().member("S1").orElseThrow().handOver()).contains(HandOverReason.NO_OTHER_MEMBER);
		assertThat(round.assigned("S1")).containsExactly(T1, T2);
	}

	@Test
	void roundWithoutEndOffsetsMovesNoStatefulTaskAndRetriesSoon() {
		RoundSimulator sim = seedGroup(LearnerRebalance.EAGER);
		sim.joins("S4", 1);
		Round first = valid(sim.rebalance());
		TaskId learned = first.learning("S4").first();
		sim.advanceUntilReady("S4", learned, STEP);

		Round unknown = valid(sim.unknownOffsetsNextRound().rebalance());

		assertThat(unknown.revoked()).isEmpty();
		assertThat(unknown.plan().unknownOffsets()).isTrue();
		assertThat(unknown.plan().followUp()).contains(sim.now().plus(Group.FIRST_RETRY));
		Round known = valid(sim.rebalance());
		assertThat(known.revokedOnly()).as("the ready learner's task moves once offsets are back").isTrue();
	}

	private static RoundSimulator seedGroup(LearnerRebalance learnerRebalance) {
		return new RoundSimulator().kafkaSettings(ACCEPTABLE_LAG, 2, 0)
			.learnerSetting(LearnerConfig.DRAIN_HAND_OVER_CONFIG, learnerRebalance.name().toLowerCase())
			.statefulTasks(5, STATE)
			.running("S1", 1, T1, T2)
			.running("S2", 1, T3, T4)
			.running("S3", 1, T5);
	}

	private static Round valid(Round round) {
		assertThat(round.error()).isEqualTo(AssignmentError.NONE);
		assertThat(round.plan()).as("the learner plan, not the fallback").isNotNull();
		return round;
	}

	private static Set<TaskId> learnedBy(Round round, String... members) {
		Set<TaskId> tasks = new HashSet<>();
		for (String member : members) {
			tasks.addAll(round.learning(member));
		}
		return tasks;
	}

	private static String ownerOf(Round round, TaskId task) {
		return round.assigned().entrySet().stream()
			.filter((entry) -> entry.getValue().contains(task))
			.map(Map.Entry::getKey)
			.findFirst()
			.orElseThrow();
	}

	private static List<Integer> loads(Round round) {
		return round.assigned().values().stream().map(SortedSet::size).toList();
	}

	private static Set<TaskId> allAssigned(Round round) {
		Set<TaskId> tasks = new HashSet<>();
		round.assigned().values().forEach(tasks::addAll);
		return tasks;
	}

}
