package io.github.incrementalrebalance.planner;

import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;

import io.github.incrementalrebalance.testkit.MemberPlanBuilder;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LearnerPlannerTests {

	private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

	private static final TaskId T0 = new TaskId(0, 0);

	private static final TaskId T1 = new TaskId(0, 1);

	@Test
	void instanceIdUsedByTwoLiveMembersIsReported() {
		GroupMember first = member("pod-1", "aaa", T0);
		GroupMember second = member("pod-1", "bbb", T1);
		GroupMember other = member("pod-2", "ccc");

		Plan plan = new LearnerPlanner().plan(Group.of(List.of(first, second, other),
				List.of(GroupTask.stateful(T0), GroupTask.stateful(T1)), List.of(), PlannerSettings.defaults(), NOW));

		assertThat(plan.duplicateInstanceIds()).containsExactly("pod-1");
		assertThat(plan.explain(NOW)).contains("instance ids used by two live members: [pod-1]");
	}

	/**
	 * The second round of a move: {@code T1} was revoked from its owner, and {@code b}, the member the previous round
	 * moved it to, and {@code c}, lighter, both hold it caught up. Knowing the previous plan, the orphan completes the
	 * move; without it, it goes to the lighter member; a plan for an earlier start of {@code b} says nothing.
	 */
	@Test
	void anOrphanGoesWhereThePreviousRoundsPlanSentIt() {
		TaskId t2 = new TaskId(0, 2);
		GroupMember a = holder("a", "a1", Map.of(T0, -2L, T1, 0L, t2, 50L));
		GroupMember b = holder("b", "b1", Map.of(T0, 50L, T1, 0L, t2, -2L));
		GroupMember c = holder("c", "c1", Map.of(T0, 50L, T1, 0L, t2, 50L));
		List<GroupMember> members = List.of(a, b, c);
		List<GroupTask> tasks = List.of(GroupTask.stateful(T0), GroupTask.stateful(T1), GroupTask.stateful(t2));
		MemberPlan movedToB = MemberPlanBuilder.plan("b", "b1").active("0_1", "0_2").build();
		MemberPlan ofAnEarlierStart = MemberPlanBuilder.plan("b", "b0").active("0_1", "0_2").build();

		assertThat(ownerOf(T1, plan(members, tasks, List.of(movedToB)))).as("where the previous round sent it")
			.isEqualTo("b");
		assertThat(ownerOf(T1, plan(members, tasks, List.of()))).as("without the previous plan").isEqualTo("c");
		assertThat(ownerOf(T1, plan(members, tasks, List.of(ofAnEarlierStart))))
			.as("a plan for an earlier start of b").isEqualTo("c");
	}

	/**
	 * A learner that restored nothing yet is no warmer than the old state two members hold of its task: the previous
	 * plan's learner keeps the task, though the other member is lighter now.
	 */
	@Test
	void aLearnerAsFarBehindAsAnotherHolderStaysWhereThePreviousPlanPutIt() {
		TaskId t2 = new TaskId(0, 2);
		TaskId t3 = new TaskId(0, 3);
		GroupMember a = holder("a", "a1", Map.of(T0, -2L, T1, -2L, t2, -2L, t3, 900_000L));
		GroupMember b = holder("b", "b1", Map.of(T0, 900_000L, T1, 50_000L, t2, 900_000L, t3, -2L));
		GroupMember c = holder("c", "c1", Map.of(T0, 900_000L, T1, 50_000L, t2, 900_000L, t3, 900_000L));
		List<GroupMember> members = List.of(a, b, c);
		List<GroupTask> tasks = List.of(GroupTask.stateful(T0), GroupTask.stateful(T1), GroupTask.stateful(t2),
				GroupTask.stateful(t3));
		MemberPlan learnerOnB = MemberPlanBuilder.plan("b", "b1").active("0_3").learning("0_1", 50_000).build();

		assertThat(learnerOf(T1, plan(members, tasks, List.of(learnerOnB)))).as("where the previous plan warmed it up")
			.isEqualTo("b");
		assertThat(learnerOf(T1, plan(members, tasks, List.of()))).as("without the previous plan").isEqualTo("c");
	}

	private static Plan plan(List<GroupMember> members, List<GroupTask> tasks, List<MemberPlan> lastPlan) {
		return new LearnerPlanner().plan(Group.of(members, tasks, List.of(), PlannerSettings.defaults(), NOW, lastPlan));
	}

	private static String learnerOf(TaskId task, Plan plan) {
		return memberWhere(plan, (member) -> member.learning().containsKey(task));
	}

	private static String ownerOf(TaskId task, Plan plan) {
		return memberWhere(plan, (member) -> member.active().contains(task));
	}

	private static String memberWhere(Plan plan, Predicate<MemberPlan> test) {
		return plan.members().values().stream().filter(test).map(MemberPlan::instanceId).findFirst().orElseThrow();
	}

	private static GroupMember holder(String instanceId, String incarnation, Map<TaskId, Long> lags) {
		Set<TaskId> running = new HashSet<>();
		Set<TaskId> held = new HashSet<>();
		lags.forEach((task, lag) -> (lag == GroupMember.RUNNING ? running : held).add(task));
		return new GroupMember(new ProcessId(UUID.randomUUID()), instanceId, incarnation, 1,
				RebalancingMode.INCREMENTAL, NOW, running, held, lags, Map.of(), Optional.empty(), Map.of());
	}

	private static GroupMember member(String instanceId, String incarnation, TaskId... running) {
		Map<TaskId, Long> lags = Map.of(T0, running.length > 0 && running[0].equals(T0) ? -2L : 100L, T1,
				running.length > 0 && running[0].equals(T1) ? -2L : 100L);
		return new GroupMember(new ProcessId(UUID.randomUUID()), instanceId, incarnation, 1,
				RebalancingMode.INCREMENTAL, NOW, Set.of(running), Set.of(), lags, Map.of(), Optional.empty(), Map.of());
	}

}
