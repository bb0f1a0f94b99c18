package io.github.incrementalrebalance.benchmarks;

import java.nio.file.Path;
import java.util.List;

import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.TestTags;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Availability while a group changes: each scenario runs every strategy that differs in it on the same data, one
 * after the other in one run, so that the ratios between them hold on a shared machine, in {@link Rounds} so that the
 * tables give a median and a range. Sized so that a cold restore of a task lasts 10 s or more. Run on demand: see
 * {@code benchmarks/README.md}.
 */
@Tag(TestTags.BROKER)
class AvailabilityBenchmark {

	@RegisterExtension
	static final KafkaBroker broker = new KafkaBroker();

	@TempDir
	Path stateRoot;

	@Test
	void scaleDown() {
		run(new ScaleDown(), Strategy.classic());
	}

	/**
	 * How an instance closes plays no part here, so kafka-default and the eager learners, which differ from their
	 * siblings only there, are not run.
	 */
	@Test
	void scaleUp() {
		run(new ScaleUp(), List.of(Strategy.KAFKA_TUNED, Strategy.KAFKA_STANDBY, Strategy.LEARNER_CONSERVATIVE));
	}

	/**
	 * Both old instances leave at once, so the eager and conservative learners hand over alike.
	 */
	@Test
	void hostSwap() {
		run(new HostSwap(), List.of(Strategy.KAFKA_DEFAULT, Strategy.KAFKA_TUNED, Strategy.KAFKA_STANDBY,
				Strategy.LEARNER_CONSERVATIVE));
	}

	/**
	 * Minimal movement: 12 tasks, three instances become four, and four become six; Kafka's warm-ups against
	 * learners. Kafka's assignor balances exactly; so do the learners here (balancing factor 1.0 instead of their
	 * default 2.0, which would accept 4/3/3/2 tasks), so that both reach the same even shares.
	 */
	@Test
	void scaleOut() {
		BenchmarkGroup.Settings settings = BenchmarkGroup.Settings.fromSystemProperties()
			.withPartitions(12)
			.withBalancingFactor(1.0);
		run(new ScaleOut(3, 4), List.of(Strategy.KAFKA_TUNED, Strategy.LEARNER_CONSERVATIVE), settings);
		run(new ScaleOut(4, 6), List.of(Strategy.KAFKA_TUNED, Strategy.LEARNER_CONSERVATIVE), settings);
	}

	/**
	 * The scale-down at 50 000, 200 000 and 800 000 records of state per task: a restore grows with the state, a hand-over
	 * to ready learners should not. Restores throttled to 40 000 records/s unless {@code benchmark.restore-rate} says
	 * otherwise, so that the largest size restores in 20 s; {@code -Dbenchmark.sweep-sizes=50000,200000} runs some.
	 */
	@Test
	void stateSizeSweep() {
		BenchmarkGroup.Settings base = BenchmarkGroup.Settings.fromSystemProperties(40_000);
		for (String keys : System.getProperty("benchmark.sweep-sizes", "50000,200000,800000").split(",")) {
			run(new ScaleDown(BenchmarkCharts.STATE_SIZE_SWEEP + "-" + keys.strip()),
					List.of(Strategy.KAFKA_TUNED, Strategy.KAFKA_STANDBY, Strategy.LEARNER_CONSERVATIVE),
					base.withKeysPerTask(Integer.parseInt(keys.strip())));
		}
	}

	private void run(Scenario scenario, List<Strategy> strategies) {
		run(scenario, strategies, BenchmarkGroup.Settings.fromSystemProperties());
	}

	private void run(Scenario scenario, List<Strategy> strategies, BenchmarkGroup.Settings settings) {
		Rounds.run(scenario, Strategy.chosen(strategies), settings, settings.describe(), broker, this.stateRoot);
	}

}
