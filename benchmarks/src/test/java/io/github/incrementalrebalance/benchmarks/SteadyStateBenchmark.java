package io.github.incrementalrebalance.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;

import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.TestTags;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the starter costs in steady state, busy ({@link #steadyState}) and idle ({@link #idle}).
 * <p>
 * Busy: the counting application as plain Kafka Streams ({@code kafka-default})
 * and with the starter ({@code learner-conservative}), on the same data, {@link #ROUNDS} runs each after a warm-up
 * round whose results are left out (the JVM compiles the hot paths during the first runs), the order alternating
 * from round to round, so that neither the warm-up nor a drift of the shared machine falls on one side. Run on demand:
 * see {@code benchmarks/README.md}.
 */
@Tag(TestTags.BROKER)
class SteadyStateBenchmark {

	private static final int ROUNDS = Integer.getInteger("benchmark.rounds", 3);

	@RegisterExtension
	static final KafkaBroker broker = new KafkaBroker();

	@TempDir
	Path stateRoot;

	@Test
	void steadyState() {
		BenchmarkGroup.Settings settings = BenchmarkGroup.Settings.fromSystemProperties();
		SteadyState steadyState = new SteadyState(broker, 400, Integer.getInteger("benchmark.backlog-keys-per-task",
				50_000));
		List<SteadyState.Result> results = rounds("steady", List.of(Strategy.KAFKA_DEFAULT, Strategy.LEARNER_CONSERVATIVE),
				(strategy) -> strategy, settings, (group, strategy) -> steadyState.run(group));
		StringBuilder table = new StringBuilder(SteadyState.Result.header());
		results.forEach((result) -> table.append('\n').append(result.row()));
		SteadyState.Summary summary = SteadyState.Summary.of(results);
		table.append("\n\n").append(summary.describe());
		ResultsFile.append("steady-state, " + Instant.now() + ": " + settings.describe(), table.toString());
		ResultsJson.writeValue(ResultsJson.DIRECTORY.resolve(BenchmarkCharts.STEADY_STATE + "-" + settings.timings() + ".json"),
				new SteadyState.Run(settings.describe(), results, summary));
		assertThat(results).allSatisfy((result) -> assertThat(result.recordsPerSecond()).isPositive());
	}

	/**
	 * Idle: the counting application with nothing to process, plain, with the starter, and with the starter but
	 * Kafka's {@code fetch.max.wait.ms} or Kafka's {@code poll.ms}, {@link #ROUNDS} runs each after a warm-up round, the order rotating. The
	 * starter's shorter fetch wait makes an idle main consumer ask its broker up to five times as often; the
	 * assertion holds it to that.
	 */
	@Test
	void idle() {
		BenchmarkGroup.Settings settings = BenchmarkGroup.Settings.fromSystemProperties().withKeysPerTask(1_000);
		Duration window = Duration.ofSeconds(Long.getLong("benchmark.idle-seconds", 20));
		IdleGroup idle = new IdleGroup(window);
		List<IdleGroup.Variant> variants = List.of(IdleGroup.Variant.PLAIN, IdleGroup.Variant.STARTER,
				IdleGroup.Variant.STARTER_KAFKA_FETCH_WAIT, IdleGroup.Variant.STARTER_KAFKA_POLL);
		List<IdleGroup.Result> results = rounds("idle", variants, IdleGroup.Variant::strategy, settings, idle::run);
		StringBuilder table = new StringBuilder(IdleGroup.Result.header());
		results.forEach((result) -> table.append('\n').append(result.row()));
		IdleGroup.Summary summary = IdleGroup.Summary.of(results);
		table.append("\n\n").append(summary.describe());
		ResultsFile.append("idle, " + Instant.now() + ": " + settings.describe(), table.toString());
		ResultsJson.writeValue(
				ResultsJson.DIRECTORY.resolve(BenchmarkCharts.STEADY_STATE + "-idle-" + settings.timings() + ".json"),
				new IdleGroup.Run(settings.describe(), window.toMillis(), results, summary));
		assertThat(summary.fetchRatio()).as("an idle consumer's fetches, with the starter over without")
			.isBetween(1.0, 5.5);
	}

	/**
	 * Run each variant once a round, {@link #ROUNDS} rounds after a warm-up round whose results are left out (the JVM
	 * compiles the hot paths during the first runs), the order rotating from round to round, so that neither the
	 * warm-up nor a drift of the shared machine falls on one variant.
	 * @return the results of the measured rounds, in the order they ran
	 */
	private <V, R> List<R> rounds(String scenario, List<V> variants, Function<V, Strategy> strategyOf,
			BenchmarkGroup.Settings settings, BiFunction<BenchmarkGroup, V, R> run) {
		List<R> results = new ArrayList<>();
		for (int round = 0; round <= ROUNDS; round++) {
			for (int turn = 0; turn < variants.size(); turn++) {
				V variant = variants.get((round + turn) % variants.size());
				try (BenchmarkGroup group = new BenchmarkGroup(broker, this.stateRoot,
						scenario + "-" + round + "-" + turn, strategyOf.apply(variant), settings)) {
					R result = run.apply(group, variant);
					if (round > 0) {
						results.add(result);
					}
				}
			}
		}
		return results;
	}

}
