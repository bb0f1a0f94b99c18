package io.github.incrementalrebalance.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.LongSummaryStatistics;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.github.incrementalrebalance.testkit.SampleProcess;
import io.github.incrementalrebalance.testkit.ExactCountVerifier;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.MarkerWatcher;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An autoscaler's scale-in as Kubernetes does it to a Deployment (HPA's default policy removes up to all pods at
 * once): six processes of the sample application's jar, two stream threads each, at Kafka's default heartbeat (3 s)
 * and session (45 s); three of them get SIGTERM at the same moment, and SIGKILL at the end of the grace period when
 * they still run, as the kubelet does ({@code terminationGracePeriodSeconds}, Kubernetes' 30 s). Side by side in one
 * run, each on a broker of its own: the starter's drain on shutdown (the default on Kubernetes), Kafka alone with a
 * real leave-group (mode {@code upgrading}: Kafka's assignor, no learners, every close a LeaveGroup), and Spring's
 * own close, which stays in the group until the session ends. Measured per run: how long each terminated process took to exit, whether it had to
 * be killed, the longest stall of the moved tasks (their markers' longest pause, as a downstream consumer sees it)
 * beside that of the tasks that did not move (the measurement's floor), the records restored at promotion, how each
 * leave ended, and whether any count was lost or doubled. Run on demand ({@code benchmarks/run.sh scale-in}); the
 * results go to {@code target/results/scale-in-6-3.json}.
 */
class ScaleInBenchmark {

	private static final int INSTANCES = 6;

	private static final int TERMINATED = 3;

	/** Two tasks per instance: one per stream thread. */
	private static final int PARTITIONS = 12;

	private static final int KEYS_PER_TASK = Integer.getInteger("benchmark.scale-in.keys-per-task", 20_000);

	/** Learners are ready within this lag: what a moved task may restore at most at promotion. */
	private static final int ACCEPTABLE_LAG = 100;

	/** Kubernetes' default {@code terminationGracePeriodSeconds}. */
	private static final Duration GRACE = Duration.ofSeconds(30);

	private static final String INPUT = "page-views";

	private static final String OUTPUT = "page-view-counts";

	/** An active task in the endpoint's {@code /tasks}. */
	private static final Pattern ACTIVE_TASK = Pattern.compile("\"id\":\"0_(\\d+)\",\"state\":\"ACTIVE\"");

	private static final Pattern CLOSED = Pattern.compile(" is closed \\(([a-z-]+)\\)");

	private final Path work = Path.of("target", "scale-in").toAbsolutePath();

	/** Each strategy's arguments, in the order they run in a round. */
	private static final Map<String, List<String>> STRATEGIES = strategies();

	@Test
	void threeOfSixInstancesTerminatedAtOnce() throws Exception {
		int repetitions = Integer.getInteger("benchmark.repetitions", 3);
		List<Round> rounds = new ArrayList<>();
		for (int repetition = 1; repetition <= repetitions; repetition++) {
			for (Map.Entry<String, List<String>> strategy : STRATEGIES.entrySet()) {
				rounds.add(round(strategy.getKey(), repetition, strategy.getValue()));
			}
		}
		ResultsJson.writeValue(ResultsJson.DIRECTORY.resolve("scale-in-6-3.json"), new Run(INSTANCES, TERMINATED,
				PARTITIONS, KEYS_PER_TASK, ACCEPTABLE_LAG, GRACE.toSeconds(), repetitions, rounds));
		StringBuilder table = new StringBuilder("| run, median (range) of " + repetitions + " rounds | longest SIGTERM "
				+ "to exit | killed at the grace | longest stall of the moved tasks | of the others (floor) | restored "
				+ "at promotion | leaves | lost / counted twice |\n|---|---|---|---|---|---|---|---|\n");
		STRATEGIES.keySet().forEach((run) -> table.append(Round.row(run, ofRun(rounds, run))).append('\n'));
		ResultsFile.append("Scale-in: " + TERMINATED + " of " + INSTANCES + " sample processes terminated at once",
				table.toString());

		List<Round> learners = ofRun(rounds, "learners");
		assertThat(learners).allSatisfy((round) -> {
			assertThat(round.killed()).as("every terminated instance exited within its grace").isZero();
			assertThat(round.restored()).as("restored at promotion: at most the acceptable lag per moved task")
				.isLessThanOrEqualTo((long) ACCEPTABLE_LAG * round.tasksMoved());
			assertThat(round.outcomes()).as("how each leave ended").containsOnly("drained");
			assertThat(round.lost() + round.countedTwice()).as("counts exact").isZero();
		});
		for (String kafka : List.of("kafka-leave-group", "spring-close")) {
			// cold: beyond what a ready learner restores (a survivor that ran a task before keeps its older state, and
			// restores only what came since)
			assertThat(ofRun(rounds, kafka)).allSatisfy((round) -> assertThat(round.restored())
				.as("Kafka alone restores the moved tasks' state at promotion: %s", kafka)
				.isGreaterThan((long) ACCEPTABLE_LAG * round.tasksMoved()));
			assertThat(median(learners, Round::longestStallOfMovedMillis))
				.as("the moved tasks' stall, against %s's", kafka)
				.isLessThan(median(ofRun(rounds, kafka), Round::longestStallOfMovedMillis));
		}
	}

	private static Map<String, List<String>> strategies() {
		Map<String, List<String>> strategies = new LinkedHashMap<>();
		strategies.put("learners", List.of());
		strategies.put("kafka-leave-group", List.of("--incremental-rebalance.mode=upgrading",
				"--incremental-rebalance.readiness.warm=false"));
		// Spring's own close, which stays in the group: the starter in mode upgrading, neither leaving on close nor
		// draining on shutdown, so that its endpoint still says which process runs which task
		strategies.put("spring-close", List.of("--incremental-rebalance.mode=upgrading",
				"--incremental-rebalance.readiness.warm=false", "--incremental-rebalance.leave.on-close=false",
				"--incremental-rebalance.drain.on-shutdown=false"));
		return Collections.unmodifiableMap(strategies);
	}

	private static List<Round> ofRun(List<Round> rounds, String run) {
		return rounds.stream().filter((round) -> round.run().equals(run)).toList();
	}

	private static long median(List<Round> rounds, ToLongFunction<Round> value) {
		return ResultsJson.median(rounds.stream().map(value::applyAsLong).toList());
	}

	private Round round(String run, int repetition, List<String> arguments) throws Exception {
		// each round's logs and state are kept until the next run of the benchmark
		Path dir = this.work.resolve(run + "-" + repetition);
		if (Files.exists(dir)) {
			try (Stream<Path> old = Files.walk(dir)) {
				old.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
			}
		}
		Files.createDirectories(dir);
		List<SampleProcess> processes = new ArrayList<>();
		try (KafkaBroker broker = new KafkaBroker().start()) {
			broker.createTopics(PARTITIONS, INPUT, OUTPUT);
			for (int i = 0; i < INSTANCES; i++) {
				List<String> all = new ArrayList<>(List.of("--spring.kafka.streams.properties.num.stream.threads=2",
						"--spring.kafka.streams.properties.acceptable.recovery.lag=" + ACCEPTABLE_LAG));
				all.addAll(arguments);
				processes.add(SampleProcess.launch(broker, dir, "pod-" + i, all));
			}
			try (TrackingProducer producer = new TrackingProducer(broker.bootstrapServers(), INPUT)) {
				await("every instance runs its share").atMost(Duration.ofMinutes(5))
					.until(() -> processes.stream().allMatch((process) -> process.active() > 0)
							&& processes.stream().mapToInt(SampleProcess::active).sum() == PARTITIONS);
				producer.load(PARTITIONS, KEYS_PER_TASK, 1);
				ExactCountVerifier.assertExactCounts(broker.bootstrapServers(), OUTPUT, producer.acknowledgedCounts(),
						Duration.ofMinutes(5));
				await("the group settled: no learner").atMost(Duration.ofMinutes(5))
					.until(() -> processes.stream().noneMatch((process) -> process.rebalance().contains("LEARNING")));
				producer.startMarkers(PARTITIONS, TrackingProducer.MARKER_INTERVAL);
				try (MarkerWatcher markers = new MarkerWatcher(broker, OUTPUT)) {
					markers.awaitEveryTaskSince(System.currentTimeMillis(), Duration.ofMinutes(1));
					List<SampleProcess> terminated = processes.subList(INSTANCES - TERMINATED, INSTANCES);
					List<SampleProcess> staying = processes.subList(0, INSTANCES - TERMINATED);
					Set<Integer> moved = new HashSet<>();
					terminated.forEach((process) -> moved.addAll(activePartitions(process)));
					assertThat(moved).as("the terminated processes' tasks, one per stream thread")
						.hasSize(TERMINATED * PARTITIONS / INSTANCES);
					List<Long> marks = new ArrayList<>();
					for (SampleProcess process : staying) {
						marks.add(process.logSize());
					}

					long signalled = System.currentTimeMillis();
					terminated.forEach((process) -> process.process().destroy());

					long longestExit = 0;
					int killed = 0;
					for (SampleProcess process : terminated) {
						long left = GRACE.toMillis() - (System.currentTimeMillis() - signalled);
						if (!process.process().waitFor(Math.max(left, 0), TimeUnit.MILLISECONDS)) {
							// the kubelet's SIGKILL at the end of the grace period
							process.process().destroyForcibly().waitFor();
							killed++;
						}
						longestExit = Math.max(longestExit, System.currentTimeMillis() - signalled);
					}
					await("the instances that stay run every task").atMost(Duration.ofMinutes(3))
						.until(() -> staying.stream().mapToInt(SampleProcess::active).sum() == PARTITIONS);
					markers.awaitEveryTaskSince(System.currentTimeMillis(), Duration.ofMinutes(3));
					long stallOfMoved = markers.longestGapSince(signalled, moved::contains).toMillis();
					long floor = markers.longestGapSince(signalled, (partition) -> !moved.contains(partition)).toMillis();
					long restored = 0;
					for (int i = 0; i < staying.size(); i++) {
						restored += staying.get(i).restoredSince(marks.get(i));
					}
					List<String> outcomes = new ArrayList<>();
					for (SampleProcess process : terminated) {
						outcomes.add(outcomeOf(process));
					}
					producer.stopMarkers();
					ExactCountVerifier.Mismatch counts = ExactCountVerifier.verifyNoneLost(broker.bootstrapServers(),
							OUTPUT, producer.acknowledgedCounts(), Duration.ofMinutes(3));
					return new Round(run, repetition, longestExit, killed, stallOfMoved, floor, moved.size(), restored,
							outcomes, counts.lost(), counts.duplicated());
				}
			}
		}
		finally {
			processes.forEach((process) -> process.process().destroyForcibly());
		}
	}

	private static Set<Integer> activePartitions(SampleProcess process) {
		Set<Integer> partitions = new HashSet<>();
		Matcher matcher = ACTIVE_TASK.matcher(process.tasks());
		while (matcher.find()) {
			partitions.add(Integer.parseInt(matcher.group(1)));
		}
		return partitions;
	}

	/** How its leave ended, as its log says; a close without the starter says nothing. */
	private static String outcomeOf(SampleProcess process) throws IOException {
		Matcher closed = CLOSED.matcher(Files.readString(process.log()));
		return closed.find() ? closed.group(1) : "closed without a leave";
	}

	/**
	 * The run, as its results file holds it.
	 */
	record Run(int instances, int terminated, int partitions, int keysPerTask, int acceptableLag, long graceSeconds,
			int repetitions, List<Round> rounds) {
	}

	/**
	 * One strategy's round.
	 * @param run the strategy
	 * @param repetition which round
	 * @param longestExitMillis the longest time a terminated process took from SIGTERM to its exit (or its SIGKILL)
	 * @param killed processes still running at the end of the grace period, killed
	 * @param longestStallOfMovedMillis the longest pause of the moved tasks' markers
	 * @param longestStallOfOthersMillis the longest pause of the other tasks' markers: the floor of the measurement
	 * @param tasksMoved the terminated processes' tasks
	 * @param restored records restored into active tasks at promotion, by the instances that stayed
	 * @param outcomes how each terminated process's leave ended
	 * @param lost counts missing
	 * @param countedTwice counts beyond what was sent
	 */
	record Round(String run, int repetition, long longestExitMillis, int killed, long longestStallOfMovedMillis,
			long longestStallOfOthersMillis, int tasksMoved, long restored, List<String> outcomes, long lost,
			long countedTwice) {

		static String row(String run, List<Round> rounds) {
			Map<String, Long> outcomes = new TreeMap<>();
			rounds.forEach((round) -> round.outcomes().forEach((outcome) -> outcomes.merge(outcome, 1L, Long::sum)));
			return String.format(Locale.ROOT, "| %s | %s | %d of %d | %s | %s | %s | %s | %d / %d |", run,
					seconds(rounds, Round::longestExitMillis), rounds.stream().mapToInt(Round::killed).sum(),
					TERMINATED * rounds.size(), seconds(rounds, Round::longestStallOfMovedMillis),
					seconds(rounds, Round::longestStallOfOthersMillis), records(rounds, Round::restored),
					outcomes.entrySet().stream().map((entry) -> entry.getValue() + " " + entry.getKey())
						.collect(Collectors.joining(", ")),
					rounds.stream().mapToLong(Round::lost).sum(), rounds.stream().mapToLong(Round::countedTwice).sum());
		}

		private static String seconds(List<Round> rounds, ToLongFunction<Round> millis) {
			LongSummaryStatistics range = rounds.stream().mapToLong(millis).summaryStatistics();
			return String.format(Locale.ROOT, "%.2f s (%.2f-%.2f s)", median(rounds, millis) / 1000.0,
					range.getMin() / 1000.0, range.getMax() / 1000.0);
		}

		private static String records(List<Round> rounds, ToLongFunction<Round> count) {
			LongSummaryStatistics range = rounds.stream().mapToLong(count).summaryStatistics();
			return String.format(Locale.ROOT, "%,d (%,d-%,d)", median(rounds, count), range.getMin(), range.getMax());
		}

	}

}
