package io.github.incrementalrebalance.planner;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.IntStream;

import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A drain with {@code incremental.rebalance.drain.restores.per.member}: the leaving member {@code a} runs six stateful
 * tasks, {@code b} takes them all, and restores at most two learners at a time; ready learners keep their place
 * without counting, the most advanced restores keep theirs, and the hand-over waits for the last wave.
 */
class DrainRestoreCapTests {

	private static final Instant NOW = Instant.parse("2026-12-05T12:00:00Z");

	/** No state of the task on {@code b}: no lag reported. */
	private static final long FRESH = Long.MAX_VALUE;

	private static final List<TaskId> OF_A = IntStream.range(0, 6).mapToObj((partition) -> new TaskId(0, partition))
		.toList();

	private static final PlannerSettings TWO_AT_A_TIME = PlannerSettings.defaults()
		.withDrainRestoreCap(new DrainRestoreCap(2, PlannerSettings.NO_CAP));

	@Test
	void theFirstWaveIsTwoLearnersAndTheOtherTasksWaitForAPlace() {
		Plan plan = round(TWO_AT_A_TIME, lagsAtB(FRESH, FRESH, FRESH, FRESH, FRESH, FRESH));

		assertThat(learning(plan)).containsExactly(task(0), task(1));
		assertThat(plan.waiting()).filteredOn((move) -> move.reason() == WaitReason.DRAIN_RESTORE_CAP)
			.extracting(WaitingMove::task)
			.containsExactly(task(2), task(3), task(4), task(5));
		assertThat(leaverPlan(plan).handOver()).isEmpty();
		assertThat(leaverPlan(plan).active()).as("a keeps running all of them").containsAll(OF_A);
		assertThat(leaverPlan(plan).beingLearned())
			.as("all of them still to hand over: the drain's progress and a deadline's cold moves count them")
			.containsExactlyElementsOf(OF_A);
	}

	@Test
	void readyLearnersKeepTheirPlaceWithoutCountingAndTheMostAdvancedRestoresKeepTheirs() {
		Plan plan = round(TWO_AT_A_TIME, lagsAtB(5, 50_000, FRESH, FRESH, FRESH, 30_000));

		assertThat(learning(plan)).as("0_0 ready; 0_5 and 0_1 restoring, the closest to ready first")
			.containsExactlyInAnyOrder(task(0), task(5), task(1));
		assertThat(plan.waiting()).filteredOn((move) -> move.reason() == WaitReason.DRAIN_RESTORE_CAP)
			.extracting(WaitingMove::task)
			.containsExactly(task(2), task(3), task(4));
	}

	@Test
	void theHandOverComesOnceTheLastWaveIsReady() {
		Plan waiting = round(TWO_AT_A_TIME, lagsAtB(0, 0, 0, 0, FRESH, FRESH));
		Plan ready = round(TWO_AT_A_TIME, lagsAtB(0, 0, 0, 0, 9, 12));

		assertThat(leaverPlan(waiting).handOver()).as("two tasks still restoring").isEmpty();
		assertThat(learning(waiting)).hasSize(6);
		assertThat(leaverPlan(ready).handOver()).contains(HandOverReason.LEARNERS_READY);
	}

	@Test
	void withoutTheCapEveryLearnerRestoresAtOnce() {
		Plan plan = round(PlannerSettings.defaults(), lagsAtB(FRESH, FRESH, FRESH, FRESH, FRESH, FRESH));

		assertThat(learning(plan)).containsExactlyInAnyOrderElementsOf(OF_A);
		assertThat(plan.waiting()).noneMatch((move) -> move.reason() == WaitReason.DRAIN_RESTORE_CAP);
	}

	@Test
	void theGroupCapHoldsAcrossTheMembersThatLearnAndReadyLearnersDoNotCount() {
		PlannerSettings threeInTheGroup = PlannerSettings.defaults()
			.withDrainRestoreCap(new DrainRestoreCap(PlannerSettings.NO_CAP, 3));
		Map<TaskId, Long> running = new HashMap<>();
		OF_A.forEach((task) -> running.put(task, GroupMember.RUNNING));
		GroupMember a = member("a", Set.copyOf(OF_A), Set.of(), running);
		GroupMember b = member("b", Set.of(), Set.of(task(0)), Map.of(task(0), 3L));
		GroupMember c = member("c", Set.of(), Set.of(), Map.of());
		Plan plan = new LearnerPlanner().plan(Group.of(List.of(a, b, c), OF_A.stream().map(GroupTask::stateful).toList(),
				List.of(new LeaveRequest("a", "a1", "leave-1", Optional.empty())), threeInTheGroup, NOW));

		List<TaskId> learning = plan.members().values().stream()
			.filter((member) -> !member.instanceId().equals("a"))
			.flatMap((member) -> member.learning().keySet().stream())
			.toList();
		assertThat(learning).as("0_0 ready on b, three restoring on b and c together").hasSize(4).contains(task(0));
		assertThat(plan.waiting()).filteredOn((move) -> move.reason() == WaitReason.DRAIN_RESTORE_CAP).hasSize(2);
	}

	@Test
	void aCapBelowOneIsRefusedNamingWhichAndWhatIsAccepted() {
		assertThatIllegalArgumentException().isThrownBy(() -> new DrainRestoreCap(2, 0))
			.withMessage("inGroup must be >= 1, was 0");
	}

	private static Plan round(PlannerSettings settings, Map<TaskId, Long> lagsAtB) {
		Map<TaskId, Long> lagsAtA = new HashMap<>();
		OF_A.forEach((task) -> lagsAtA.put(task, GroupMember.RUNNING));
		GroupMember a = member("a", Set.copyOf(OF_A), Set.of(), lagsAtA);
		GroupMember b = member("b", Set.of(), lagsAtB.keySet(), lagsAtB);
		List<GroupTask> tasks = OF_A.stream().map(GroupTask::stateful).toList();
		return new LearnerPlanner().plan(Group.of(List.of(a, b), tasks,
				List.of(new LeaveRequest("a", "a1", "leave-1", Optional.empty())), settings, NOW));
	}

	private static Map<TaskId, Long> lagsAtB(long... lags) {
		Map<TaskId, Long> byTask = new HashMap<>();
		for (int partition = 0; partition < lags.length; partition++) {
			if (lags[partition] != FRESH) {
				byTask.put(task(partition), lags[partition]);
			}
		}
		return byTask;
	}

	private static GroupMember member(String instanceId, Set<TaskId> running, Set<TaskId> held,
			Map<TaskId, Long> lags) {
		return new GroupMember(new ProcessId(UUID.nameUUIDFromBytes(instanceId.getBytes())), instanceId,
				instanceId + "1", 1, RebalancingMode.INCREMENTAL, NOW, running, held, lags, Map.of(), Optional.empty(),
				Map.of());
	}

	private static List<TaskId> learning(Plan plan) {
		return plan.members()
			.values()
			.stream()
			.filter((member) -> member.instanceId().equals("b"))
			.flatMap((member) -> member.learning().keySet().stream())
			.toList();
	}

	private static MemberPlan leaverPlan(Plan plan) {
		return plan.members().values().stream().filter((member) -> member.instanceId().equals("a")).findFirst()
			.orElseThrow();
	}

	private static TaskId task(int partition) {
		return new TaskId(0, partition);
	}

}
