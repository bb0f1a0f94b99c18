package io.github.incrementalrebalance.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.planner.MemberPlan;
import io.github.incrementalrebalance.planner.Plan;
import io.github.incrementalrebalance.testkit.RackTraffic;
import io.github.incrementalrebalance.testkit.RoundSimulator;
import io.github.incrementalrebalance.testkit.RoundSimulator.Round;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.AssignmentError;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Cross-rack traffic cost side by side with Kafka's rack-aware placement ({@code rack.aware.assignment.strategy=min_traffic},
 * Kafka's costs: 10 per source or changelog partition outside its member's rack, 1 per move). A group runs its tasks
 * where a rack-blind assignment put them (spread at random over members of random racks, each with state); Kafka's
 * KIP-924 {@code StickyTaskAssignor}, which balances and then runs {@code TaskAssignmentUtils.optimizeRackAwareActiveTasks},
 * places them in one assignment; the learner assignor is run round by round on the round simulator, learners warming up
 * between rounds, until nothing moves or warms up any more. Reported: the cost before, Kafka's, the learners', the
 * rounds and moves it took. Run on demand: see {@code benchmarks/README.md}.
 */
class RackCostBenchmark {

	private static final int TRAFFIC_COST = 10;

	@Test
	void crossRackTrafficCostAgainstKafkasRackAwareAssignor() {
		StringBuilder table = new StringBuilder("| group | balancing factor | before | Kafka (sticky, rack-aware) "
				+ "| learner assignor | learner / Kafka | Kafka: tasks moved cold | learners: rounds | learners: tasks "
				+ "moved warm |\n|---|---|---|---|---|---|---|---|---|");
		// Kafka's optimizer solves a min-cost flow over every task and member: minutes a run past a few hundred tasks
		for (Group group : List.of(new Group(3, 12, 2, 1), new Group(6, 60, 3, 2), new Group(12, 120, 3, 2),
				new Group(20, 300, 3, 4))) {
			for (double factor : List.of(1.0, 2.0)) {
				Result result = run(group, factor, new Random(group.members() * 31L));
				table.append('\n').append(result.row());
				assertThat(result.learners()).as("%s", result.row()).isLessThanOrEqualTo(result.kafka());
			}
		}
		ResultsFile.append("Cross-rack traffic cost, " + Instant.now(), table.toString());
	}

	static Result run(Group group, double factor, Random random) {
		String[] racks = List.of("a", "b", "c").subList(0, group.racks()).toArray(String[]::new);
		RoundSimulator sim = new RoundSimulator().kafkaSettings(10_000, 2, 0)
			.learnerSetting(LearnerConfig.BALANCING_FACTOR_CONFIG, factor)
			.statefulTasks(group.tasks(), 100_000)
			.rackAware("min_traffic", racks);
		List<List<TaskId>> running = new ArrayList<>();
		for (int member = 0; member < group.members(); member++) {
			running.add(new ArrayList<>());
		}
		for (TaskId task : sim.tasks()) {
			running.get(random.nextInt(group.members())).add(task);
		}
		for (int member = 0; member < group.members(); member++) {
			sim.running("m" + member, group.threads(), running.get(member).toArray(TaskId[]::new))
				.rack("m" + member, racks[random.nextInt(racks.length)]);
		}
		long before = RackTraffic.ofRunning(sim.applicationState(), TRAFFIC_COST);
		RackTraffic.KafkaPlacement kafka = RackTraffic.ofKafka(sim.applicationState(), TRAFFIC_COST);
		int rounds = 0;
		int moved = 0;
		while (rounds < 10_000) {
			Round round = sim.rebalance();
			rounds++;
			assertThat(round.error()).isEqualTo(AssignmentError.NONE);
			Plan plan = round.plan();
			moved += (int) plan.moves().stream().filter((move) -> move.from().isPresent()).count();
			boolean learners = plan.members().stream().anyMatch((member) -> !member.learning().isEmpty());
			if (!round.revokedOnly() && plan.moves().isEmpty() && plan.waiting().isEmpty() && !learners) {
				break;
			}
			for (MemberPlan member : plan.members()) {
				member.learning().keySet()
					.forEach((task) -> sim.advanceUntilReady(member.instanceId(), task, Duration.ofMillis(500)));
			}
		}
		long learners = RackTraffic.ofRunning(sim.applicationState(), TRAFFIC_COST);
		return new Result(group, factor, before, kafka.cost(), learners, kafka.moved(), rounds, moved);
	}

	record Group(int members, int tasks, int racks, int threads) {

		@Override
		public String toString() {
			return String.format("%,d tasks x %d members x %d threads, %d racks", this.tasks, this.members,
					this.threads, this.racks);
		}

	}

	record Result(Group group, double factor, long before, long kafka, long learners, int movedByKafka,
			int rounds, int moved) {

		String row() {
			return String.format("| %s | %.1f | %,d | %,d | %,d | %.2f | %d | %d | %d |", this.group, this.factor,
					this.before, this.kafka, this.learners,
					(this.kafka == 0) ? 1.0 : this.learners / (double) this.kafka, this.movedByKafka, this.rounds,
					this.moved);
		}

	}

}
