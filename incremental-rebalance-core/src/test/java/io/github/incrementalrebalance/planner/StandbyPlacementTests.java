package io.github.incrementalrebalance.planner;

import java.util.Map;
import java.util.Optional;

import io.github.incrementalrebalance.testkit.RoundSimulator;
import io.github.incrementalrebalance.testkit.RoundSimulator.Round;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.AssignmentError;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Standby replicas ({@code num.standby.replicas}) besides learners: never on a leaving member, and in another zone
 * than the task's owner when {@code rack.aware.assignment.tags} names the zone tag.
 */
class StandbyPlacementTests {

	private static final TaskId T0 = new TaskId(0, 0);

	private static final TaskId T1 = new TaskId(0, 1);

	private static final TaskId T2 = new TaskId(0, 2);

	private static final TaskId T3 = new TaskId(0, 3);

	@Test
	void standbysGoToAnotherZoneThanTheOwner() {
		RoundSimulator sim = new RoundSimulator().kafkaSettings(10_000, 2, 1)
			.rackAwareTags("zone")
			.statefulTasks(4, 1_000)
			.running("a", 1, T0, T1)
			.running("b", 1, T2)
			.running("c", 1, T3)
			.joins("d", 1)
			.tag("a", "zone", "z1")
			.tag("b", "zone", "z1")
			.tag("c", "zone", "z2")
			.tag("d", "zone", "z2");

		Round round = sim.rebalance();

		assertThat(round.error()).isEqualTo(AssignmentError.NONE);
		Map<String, String> zones = Map.of("a", "z1", "b", "z1", "c", "z2", "d", "z2");
		for (MemberPlan member : round.plan().members().values()) {
			for (TaskId task : member.standby()) {
				String owner = round.plan().members().values().stream()
					.filter((m) -> m.active().contains(task))
					.findFirst()
					.orElseThrow()
					.instanceId();
				assertThat(zones.get(member.instanceId())).as("zone of the standby of %s", task)
					.isNotEqualTo(zones.get(owner));
			}
		}
		assertThat(round.plan().members().values().stream().mapToLong((m) -> m.standby().size()).sum()).isEqualTo(4);
	}

	@Test
	void leavingMembersStandbysArePlacedElsewhereAtOnce() {
		RoundSimulator sim = new RoundSimulator().kafkaSettings(10_000, 2, 1)
			.statefulTasks(3, 1_000)
			.running("a", 1, T0)
			.running("b", 1, T1)
			.running("c", 1, T2);
		Round before = sim.rebalance();
		assertThat(before.plan().member("b").orElseThrow().standby()).isNotEmpty();

		sim.requestsLeave("b", Optional.empty());
		Round leaving = sim.rebalance();

		MemberPlan b = leaving.plan().member("b").orElseThrow();
		assertThat(b.standbyTasks()).isEmpty();
		for (TaskId task : new TaskId[] { T0, T2 }) {
			assertThat(leaving.plan().members().values().stream().filter((m) -> m.standby().contains(task)))
				.as("standbys of %s", task)
				.hasSize(1);
		}
	}

}
