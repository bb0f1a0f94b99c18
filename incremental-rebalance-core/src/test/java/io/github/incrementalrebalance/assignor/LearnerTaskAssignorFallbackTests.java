package io.github.incrementalrebalance.assignor;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.github.incrementalrebalance.testkit.InMemoryControlView;
import io.github.incrementalrebalance.planner.Plan;
import io.github.incrementalrebalance.testkit.RoundSimulator;
import io.github.incrementalrebalance.testkit.RoundSimulator.Round;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.AssignmentError;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The assignor never throws: Kafka would kill every stream thread of the group. When planning fails it hands out
 * Kafka's sticky assignment, counts the failure and says why.
 */
class LearnerTaskAssignorFallbackTests {

	@Test
	void failedPlanningFallsBackToKafkasStickyAssignorAndCountsIt() {
		ControlView broken = () -> {
			throw new IllegalStateException("control view unreadable");
		};
		RoundSimulator sim = new RoundSimulator().statefulTasks(4, 1_000)
			.statelessTasks(2)
			.running("a", 1, new TaskId(0, 0), new TaskId(0, 1), new TaskId(1, 0))
			.running("b", 1, new TaskId(0, 2), new TaskId(0, 3), new TaskId(1, 1))
			.learnerSetting(ControlView.CONFIG, broken);

		Round first = sim.rebalance();
		Round second = sim.rebalance();

		for (Round round : new Round[] { first, second }) {
			assertThat(round.error()).isEqualTo(AssignmentError.NONE);
			assertThat(round.plan()).as("no learner plan from a failed round").isNull();
			Set<TaskId> active = new HashSet<>();
			round.assigned().values().forEach((tasks) -> tasks.forEach((task) -> assertThat(active.add(task)).isTrue()));
			assertThat(active).containsExactlyInAnyOrderElementsOf(sim.tasks());
		}
		assertThat(second.assigned("a")).containsExactly(new TaskId(0, 0), new TaskId(0, 1), new TaskId(1, 0));
		assertThat(sim.assignorStatus().fallbacks()).isEqualTo(2);
		assertThat(sim.assignorStatus().lastFallbackReason()).contains("control view unreadable");
		assertThat(sim.assignorStatus().fallingBack()).isTrue();

		sim.learnerSetting(ControlView.CONFIG, new InMemoryControlView());
		assertThat(sim.rebalance().plan()).as("the control view is back: a learner plan").isNotNull();
		assertThat(sim.assignorStatus().fallingBack()).isFalse();
		assertThat(sim.assignorStatus().fallbacks()).as("counted, not forgotten").isEqualTo(2);
	}

	@Test
	void aRoundThatFellBackTellsThePlanListenerItHasNoPlan() {
		List<String> heard = new ArrayList<>();
		PlanListener listener = new PlanListener() {

			@Override
			public void onPlan(Plan plan, AssignmentError error) {
				heard.add("plan");
			}

			@Override
			public void onNoPlan() {
				heard.add("no plan");
			}

		};
		RoundSimulator sim = new RoundSimulator().statefulTasks(2, 1_000)
			.running("a", 1, new TaskId(0, 0), new TaskId(0, 1));
		LearnerTaskAssignor planning = sim.assignor(listener);
		planning.assign(sim.applicationState());
		planning.onAssignmentComputed(null, null, AssignmentError.NONE);

		sim.learnerSetting(ControlView.CONFIG, (ControlView) () -> {
			throw new IllegalStateException("control view unreadable");
		});
		LearnerTaskAssignor failing = sim.assignor(listener);
		failing.assign(sim.applicationState());
		failing.onAssignmentComputed(null, null, AssignmentError.NONE);

		assertThat(heard).containsExactly("plan", "no plan");
	}

}
