package io.github.incrementalrebalance.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.SortedSet;
import java.util.stream.Collectors;

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
 * Cross-rack traffic cost side by side with Kafka's rack-aware placement ({@code rack.aware.assignment.strategy}
 * {@code min_traffic}, and {@code balance_subtopology} with the tasks in two sub-topologies; Kafka's costs: 10 per
 * source or changelog partition outside its member's rack, 1 per move). A group runs its tasks where a rack-blind
 * assignment put them (spread at random over members of random racks, each with state); Kafka's KIP-924
 * {@code StickyTaskAssignor}, which balances and then runs {@code TaskAssignmentUtils.optimizeRackAwareActiveTasks},
 * places them in one assignment; the learner assignor is run round by round on the round simulator, learners warming
 * up between rounds, until nothing moves or warms up any more. Reported: the cost before, Kafka's, the learners', the
 * rounds and moves it took, and under {@code balance_subtopology} the tasks the learner assignor leaves above Kafka's
 * cap of a sub-topology per member. Run on demand: see {@code benchmarks/README.md}.
 */
class RackCostBenchmark {

	/** The table's head, in the run's output and in {@code benchmarks/README.md}. */
	static final String HEADER = "| strategy | group | balancing factor | before | Kafka (sticky, rack-aware) | learner "
			+ "assignor | learner / Kafka | Kafka: tasks moved cold | learners: rounds | learners: tasks moved warm "
			+ "| learners: above a sub-topology's cap |\n|---|---|---|---|---|---|---|---|---|---|---|";

	private static final int TRAFFIC_COST = 10;

	@Test
	void crossRackTrafficCostAgainstKafkasRackAwareAssignor() {
		StringBuilder table = new StringBuilder(HEADER);
		List<Result> results = new ArrayList<>();
		// Kafka's optimizer solves a min-cost flow over every task and member: minutes a run past a few hundred tasks
		for (String strategy : List.of("min_traffic", "balance_subtopology")) {
			for (Group group : List.of(new Group(3, 12, 2, 1), new Group(6, 60, 3, 2), new Group(12, 120, 3, 2),
					new Group(20, 300, 3, 4))) {
				for (double factor : List.of(1.0, 2.0)) {
					Result result = run(group, factor, strategy, new Random(group.members() * 31L));
					table.append('\n').append(result.row());
					results.add(result);
					assertThat(result.learners()).as("%s", result.row()).isLessThanOrEqualTo(result.kafka());
					assertThat(result.aboveCap()).as("%s", result.row()).isZero();
				}
			}
		}
		ResultsFile.append("Cross-rack traffic cost, " + Instant.now(), table.toString());
		ResultsJson.writeValue(ResultsJson.DIRECTORY.resolve("rack-cost.json"), new Run(Instant.now().toString(),
				results));
	}

	static Result run(Group group, double factor, String strategy, Random random) {
		String[] racks = List.of("a", "b", "c").subList(0, group.racks()).toArray(String[]::new);
		boolean spread = strategy.equals("balance_subtopology");
		int ofFirst = spread ? group.tasks() / 2 : group.tasks();
		RoundSimulator sim = new RoundSimulator().kafkaSettings(10_000, 2, 0)
			.learnerSetting(LearnerConfig.BALANCING_FACTOR_CONFIG, factor)
			.statefulTasks(ofFirst, 100_000);
		if (spread) {
			sim.statefulTasksOfSubtopology(2, group.tasks() - ofFirst, 100_000);
		}
		sim.rackAware(strategy, racks);
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
			boolean learners = plan.members().values().stream().anyMatch((member) -> !member.learning().isEmpty());
			if (!round.revokedOnly() && plan.moves().isEmpty() && plan.waiting().isEmpty() && !learners) {
				break;
			}
			for (MemberPlan member : plan.members().values()) {
				member.learning().keySet()
					.forEach((task) -> sim.advanceUntilReady(member.instanceId(), task, Duration.ofMillis(500)));
			}
		}
		long learners = RackTraffic.ofRunning(sim.applicationState(), TRAFFIC_COST);
		return new Result(strategy, group, factor, before, kafka.cost(), learners, kafka.moved(), rounds, moved,
				spread ? aboveCap(sim) : 0);
	}

	/**
	 * Tasks above Kafka's {@code balance_subtopology} cap: a member with {@code n} of the group's {@code N} tasks
	 * should run at most {@code ceil(n / N x tasks of the sub-topology)} of a sub-topology.
	 */
	private static int aboveCap(RoundSimulator sim) {
		int total = sim.tasks().size();
		Map<Integer, Long> ofSubtopology = sim.tasks().stream()
			.collect(Collectors.groupingBy(TaskId::subtopology, Collectors.counting()));
		int above = 0;
		for (String member : sim.memberNames()) {
			SortedSet<TaskId> tasks = sim.activeTasks(member);
			for (Map.Entry<Integer, Long> subtopology : ofSubtopology.entrySet()) {
				long cap = (long) Math.ceil((double) tasks.size() / total * subtopology.getValue());
				long held = tasks.stream().filter((task) -> task.subtopology() == subtopology.getKey()).count();
				above += (int) Math.max(0, held - cap);
			}
		}
		return above;
	}

	/**
	 * A run's results as {@code rack-cost.json} keeps them.
	 */
	record Run(String at, List<Result> results) {
	}

	record Group(int members, int tasks, int racks, int threads) {

		@Override
		public String toString() {
			return String.format(Locale.ROOT, "%,d tasks x %d members x %d threads, %d racks", this.tasks, this.members,
					this.threads, this.racks);
		}

	}

	record Result(String strategy, Group group, double factor, long before, long kafka, long learners,
			int movedByKafka, int rounds, int moved, int aboveCap) {

		String row() {
			return String.format(Locale.ROOT, "| %s | %s | %.1f | %,d | %,d | %,d | %.2f | %d | %d | %d | %s |",
					this.strategy, this.group, this.factor, this.before, this.kafka, this.learners,
					(this.kafka == 0) ? 1.0 : this.learners / (double) this.kafka, this.movedByKafka, this.rounds,
					this.moved, this.strategy.equals("balance_subtopology") ? String.valueOf(this.aboveCap) : "-");
		}

	}

}
