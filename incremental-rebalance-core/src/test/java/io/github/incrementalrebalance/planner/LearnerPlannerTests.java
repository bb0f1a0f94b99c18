package io.github.incrementalrebalance.planner;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

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

	private static GroupMember member(String instanceId, String incarnation, TaskId... running) {
		Map<TaskId, Long> lags = Map.of(T0, running.length > 0 && running[0].equals(T0) ? -2L : 100L, T1,
				running.length > 0 && running[0].equals(T1) ? -2L : 100L);
		return new GroupMember(new ProcessId(UUID.randomUUID()), instanceId, incarnation, 1,
				RebalancingMode.INCREMENTAL, NOW, Set.of(running), Set.of(), lags, Map.of(), Optional.empty(), Map.of());
	}

}
