package io.github.incrementalrebalance.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.github.incrementalrebalance.sample.SampleProcess;
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

	@Test
	void threeOfSixInstancesTerminatedAtOnce() throws Exception {
		List<Round> rounds = new ArrayList<>();
		rounds.add(round("learners", List.of()));
		rounds.add(round("kafka-leave-group", List.of("--incremental-rebalance.mode=upgrading",
				"--incremental-rebalance.readiness.warm=false")));
		// Spring's own close, which stays in the group: the starter in mode upgrading, neither leaving on close nor
		// draining on shutdown, so that its endpoint still says which process runs which task
		rounds.add(round("spring-close", List.of("--incremental-rebalance.mode=upgrading",
				"--incremental-rebalance.readiness.warm=false", "--incremental-rebalance.leave.on-close=false",
				"--incremental-rebalance.drain.on-shutdown=false")));
		ResultsJson.writeValue(ResultsJson.DIRECTORY.resolve("scale-in-6-3.json"), new Run(INSTANCES, TERMINATED,
				PARTITIONS, KEYS_PER_TASK, ACCEPTABLE_LAG, GRACE.toSeconds(), rounds));
		StringBuilder table = new StringBuilder("| run | longest SIGTERM to exit | killed at the grace | longest stall of "
				+ "the moved tasks | of the others (floor) | restored at promotion | leaves | lost / counted twice |\n"
				+ "|---|---|---|---|---|---|---|---|\n");
		rounds.forEach((round) -> table.append(round.row()).append('\n'));
		ResultsFile.append("Scale-in: " + TERMINATED + " of " + INSTANCES + " sample processes terminated at once",
				table.toString());

		Round learners = rounds.get(0);
		assertThat(learners.killed()).as("every terminated instance exited within its grace").isZero();
		assertThat(learners.longestStallOfMovedMillis()).as("the moved tasks' longest stall").isLessThanOrEqualTo(1_000);
		assertThat(learners.restored()).as("restored at promotion: at most the acceptable lag per moved task")
			.isLessThanOrEqualTo((long) ACCEPTABLE_LAG * learners.tasksMoved());
		assertThat(learners.outcomes()).as("how each leave ended").containsOnly("drained");
		assertThat(learners.lost() + learners.countedTwice()).as("counts exact").isZero();
		assertThat(rounds.subList(1, rounds.size())).allSatisfy((kafka) -> assertThat(kafka.restored())
			.as("Kafka alone restores the moved tasks' state at promotion: %s", kafka.run())
			.isGreaterThanOrEqualTo((long) KEYS_PER_TASK * kafka.tasksMoved()));
	}

	private Round round(String run, List<String> arguments) throws Exception {
		// each run's logs and state are kept until the next run of the benchmark
		Path dir = this.work.resolve(run);
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
					return new Round(run, longestExit, killed, stallOfMoved, floor, moved.size(), restored, outcomes,
							counts.lost(), counts.duplicated());
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
			List<Round> rounds) {
	}

	/**
	 * One strategy's round.
	 * @param run the strategy
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
	record Round(String run, long longestExitMillis, int killed, long longestStallOfMovedMillis,
			long longestStallOfOthersMillis, int tasksMoved, long restored, List<String> outcomes, long lost,
			long countedTwice) {

		String row() {
			return String.format(Locale.ROOT, "| %s | %.1f s | %d of %d | %.2f s | %.2f s | %,d (%d tasks) | %s | %d / %d |",
					this.run, this.longestExitMillis / 1000.0, this.killed, TERMINATED,
					this.longestStallOfMovedMillis / 1000.0, this.longestStallOfOthersMillis / 1000.0, this.restored,
					this.tasksMoved, String.join(", ", this.outcomes), this.lost, this.countedTwice);
		}

	}

}
