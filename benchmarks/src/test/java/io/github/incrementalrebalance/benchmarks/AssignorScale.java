package io.github.incrementalrebalance.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;

import io.github.incrementalrebalance.testkit.RoundSimulator;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.TaskAssignmentUtils;
import org.apache.kafka.streams.processor.assignment.TaskAssignor;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.AssignmentError;
import org.apache.kafka.streams.processor.assignment.assignors.StickyTaskAssignor;

/**
 * One assignment of a large group, timed: the learner assignor against Kafka's KIP-924 sticky assignor on the same
 * {@link ApplicationState}, built by the test kit's round simulator. The group is settled (every member runs its
 * share, caught up); then one member crashes and its tasks need owners.
 */
final class AssignorScale {

	private static final int WARMUPS = 2;

	private static final int MEASURED = 5;

	private static final Duration BUDGET = Duration.ofSeconds(20);

	private static final List<String> RACKS = List.of("a", "b", "c");

	private AssignorScale() {
	}

	static List<Result> run(Size size) {
		RoundSimulator group = settledGroup(size);
		group.leavesGroup("m0");
		ApplicationState state = group.applicationState();
		List<Result> results = new ArrayList<>();
		results.add(time(size, "learner", state, () -> group.assignor((plan, error) -> {
		})));
		if (size.racks() == 0) {
			// with racks Kafka's optimizer takes minutes a run at these sizes (RackCostBenchmark compares the costs)
			results.add(time(size, "kafka-sticky", state, () -> {
				StickyTaskAssignor assignor = new StickyTaskAssignor();
				assignor.configure(Map.of());
				return assignor;
			}));
		}
		return results;
	}

	private static RoundSimulator settledGroup(Size size) {
		RoundSimulator group = new RoundSimulator().kafkaSettings(10_000, 2, size.standbys())
			.statefulTasks(size.tasks(), 1_000_000);
		Map<Integer, List<TaskId>> share = new HashMap<>();
		for (int partition = 0; partition < size.tasks(); partition++) {
			share.computeIfAbsent(partition % size.members(), (member) -> new ArrayList<>())
				.add(new TaskId(0, partition));
		}
		for (int member = 0; member < size.members(); member++) {
			group.running("m" + member, size.threads(),
					share.getOrDefault(member, List.of()).toArray(TaskId[]::new));
		}
		if (size.racks() > 0) {
			// members in racks at random: the tasks run where a rack-blind assignment put them, far from the cheapest
			String[] racks = RACKS.subList(0, size.racks()).toArray(String[]::new);
			group.rackAware("min_traffic", racks);
			Random random = new Random(size.members());
			for (int member = 0; member < size.members(); member++) {
				group.rack("m" + member, racks[random.nextInt(racks.length)]);
			}
		}
		return group;
	}

	/**
	 * The median of {@link #MEASURED} runs after {@link #WARMUPS}, or of fewer where an assignor takes longer than
	 * {@link #BUDGET} (Kafka's sticky assignor pairs every two tasks of an instance: minutes a run at thousands of
	 * tasks per instance); a single slow run is then the figure.
	 */
	private static Result time(Size size, String assignorName, ApplicationState state,
			Supplier<TaskAssignor> assignors) {
		List<Long> measured = new ArrayList<>();
		TaskAssignor.TaskAssignment assignment = null;
		long spent = 0;
		for (int run = 0; run < WARMUPS + MEASURED && (run == 0 || spent < BUDGET.toNanos()); run++) {
			TaskAssignor assignor = assignors.get();
			long start = System.nanoTime();
			assignment = assignor.assign(state);
			long elapsed = System.nanoTime() - start;
			spent += elapsed;
			if (run >= WARMUPS || spent >= BUDGET.toNanos()) {
				measured.add(elapsed);
			}
		}
		Collections.sort(measured);
		AssignmentError error = TaskAssignmentUtils.validateTaskAssignment(state, assignment);
		return new Result(size, assignorName, Duration.ofNanos(measured.get(measured.size() / 2)), measured.size(),
				error, activeSpread(assignment, size.threads()));
	}

	/**
	 * Most-loaded over least-loaded member, in active tasks per thread.
	 */
	private static double activeSpread(TaskAssignor.TaskAssignment assignment, int threads) {
		List<Long> loads = assignment.assignment()
			.stream()
			.map((client) -> client.tasks()
				.values()
				.stream()
				.filter((task) -> task.type() == KafkaStreamsAssignment.AssignedTask.Type.ACTIVE)
				.count())
			.sorted()
			.toList();
		double least = (double) loads.get(0) / threads;
		double most = (double) loads.get(loads.size() - 1) / threads;
		return (least == 0) ? Double.POSITIVE_INFINITY : most / least;
	}

	/**
	 * A run's results as {@code assignor-scale.json} keeps them.
	 * @param at when it ended
	 * @param results each group's, the learner assignor's first
	 */
	record Run(String at, List<Result> results) {

		static final String FILE = "assignor-scale.json";

	}

	/**
	 * A group size.
	 * @param tasks stateful tasks
	 * @param members instances
	 * @param threads stream threads per instance
	 * @param standbys {@code num.standby.replicas}
	 * @param racks racks of the members and partitions under {@code rack.aware.assignment.strategy=min_traffic}; 0:
	 * none
	 */
	record Size(int tasks, int members, int threads, int standbys, int racks) {

		Size(int tasks, int members, int threads, int standbys) {
			this(tasks, members, threads, standbys, 0);
		}

		@Override
		public String toString() {
			StringBuilder size = new StringBuilder(ReadmeTables.grouped(this.tasks) + " tasks x "
					+ ReadmeTables.grouped(this.members) + " instances");
			if (this.threads > 1) {
				size.append(" x ").append(ReadmeTables.grouped(this.threads)).append(" threads");
			}
			size.append(switch (this.standbys) {
				case 0 -> ", no standby";
				case 1 -> ", 1 standby";
				default -> ", " + this.standbys + " standbys";
			});
			if (this.racks > 0) {
				size.append(", ").append(this.racks).append(" racks, placed rack-blind");
			}
			return size.toString();
		}

	}

	/**
	 * One timed assignment.
	 * @param size the group
	 * @param assignor which assignor
	 * @param median the median time of {@code assign()}
	 * @param runs how many runs the median is of
	 * @param error Kafka's validation of the result
	 * @param spread most- over least-loaded instance, active tasks per thread
	 */
	record Result(Size size, String assignor, Duration median, int runs, AssignmentError error, double spread) {

		String row() {
			return String.format(Locale.ROOT, "| %s | %s | %.1f ms | %d | %s | %.2f |", this.size, this.assignor,
					this.median.toNanos() / 1_000_000.0, this.runs, this.error, this.spread);
		}

		static String header() {
			return "| group (one instance just crashed) | assignor | assign(), median | runs | Kafka's validation | "
					+ "load spread |\n|---|---|---|---|---|---|";
		}

	}

}
