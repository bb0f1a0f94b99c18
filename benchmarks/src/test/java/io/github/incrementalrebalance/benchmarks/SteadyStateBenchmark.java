package io.github.incrementalrebalance.benchmarks;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.TestTags;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the starter costs in steady state: the counting application as plain Kafka Streams ({@code kafka-default})
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
		List<SteadyState.Result> results = new ArrayList<>();
		for (int round = 0; round <= ROUNDS; round++) {
			List<Strategy> order = (round % 2 == 0) ? List.of(Strategy.KAFKA_DEFAULT, Strategy.LEARNER_CONSERVATIVE)
					: List.of(Strategy.LEARNER_CONSERVATIVE, Strategy.KAFKA_DEFAULT);
			for (Strategy strategy : order) {
				try (BenchmarkGroup group = new BenchmarkGroup(broker, this.stateRoot, "steady-" + round, strategy,
						settings)) {
					SteadyState.Result result = steadyState.run(group);
					if (round > 0) {
						results.add(result);
					}
				}
			}
		}
		StringBuilder table = new StringBuilder(SteadyState.Result.header());
		results.forEach((result) -> table.append('\n').append(result.row()));
		SteadyState.Summary summary = SteadyState.Summary.of(results);
		table.append("\n\n").append(summary.describe());
		ResultsFile.append("steady-state, " + Instant.now() + ": " + settings.describe(), table.toString());
		ResultsJson.writeValue(ResultsJson.DIRECTORY.resolve(BenchmarkCharts.STEADY_STATE + "-" + settings.timings() + ".json"),
				new SteadyState.Run(settings.describe(), results, summary));
		assertThat(results).allSatisfy((result) -> assertThat(result.recordsPerSecond()).isPositive());
	}

}
