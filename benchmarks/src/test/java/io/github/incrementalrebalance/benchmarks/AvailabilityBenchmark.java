package io.github.incrementalrebalance.benchmarks;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.github.incrementalrebalance.testkit.KafkaBroker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Availability while a group changes: each scenario runs every strategy that differs in it on the same data, one
 * after the other in one run, so that the ratios between them hold on a shared machine. Sized so that a cold restore
 * of a task lasts 10 s or more. Run on demand: see {@code benchmarks/README.md}.
 */
class AvailabilityBenchmark {

	@RegisterExtension
	static final KafkaBroker broker = new KafkaBroker();

	@TempDir
	Path stateRoot;

	@Test
	void scaleDown() {
		run(new ScaleDown(), List.of(Strategy.values()));
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

	private void run(Scenario scenario, List<Strategy> strategies) {
		BenchmarkGroup.Settings settings = BenchmarkGroup.Settings.fromSystemProperties();
		List<AvailabilityResult> results = new ArrayList<>();
		for (Strategy strategy : strategies) {
			results.add(Scenario.run(scenario, broker, this.stateRoot, strategy, settings));
		}
		StringBuilder table = new StringBuilder(AvailabilityResult.header());
		results.forEach((result) -> table.append('\n').append(result.row()));
		ResultsFile.append(scenario.name() + ", " + Instant.now() + ": " + settings.describe(), table.toString());
		ResultsJson.write(ResultsJson.DIRECTORY, scenario.name(), settings, results);
		assertThat(results).allSatisfy((result) -> assertThat(result.complete()).isPositive());
	}

}
