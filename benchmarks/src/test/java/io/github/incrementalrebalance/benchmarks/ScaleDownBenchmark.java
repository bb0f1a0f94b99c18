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
 * Availability during a scale-down (3 to 2 instances), every strategy on the same data in one run, so the ratios
 * between them hold on a shared machine. Sized so that kafka-tuned restores b's tasks for 10 s or more. Run on demand:
 * see {@code benchmarks/README.md}; {@code -Dbenchmark.keys-per-task}, {@code -Dbenchmark.restore-rate} and
 * {@code -Dbenchmark.group-timings=test} change the size.
 */
class ScaleDownBenchmark {

	@RegisterExtension
	static final KafkaBroker broker = new KafkaBroker();

	@TempDir
	Path stateRoot;

	@Test
	void everyStrategyOnTheSameData() {
		ScaleDown.Settings settings = new ScaleDown.Settings(6, Integer.getInteger("benchmark.keys-per-task", 100_000),
				Long.getLong("benchmark.restore-rate", 10_000), 1_000,
				!"test".equals(System.getProperty("benchmark.group-timings")));
		List<ScaleDown.Result> results = new ArrayList<>();
		for (Strategy strategy : Strategy.values()) {
			results.add(ScaleDown.run(broker, this.stateRoot, strategy, settings));
		}
		StringBuilder table = new StringBuilder(ScaleDown.Result.header());
		results.forEach((result) -> table.append('\n').append(result.row()));
		ResultsFile.append("Scale-down, " + Instant.now() + ": " + settings.describe(), table.toString());
		assertThat(results).allSatisfy((result) -> assertThat(result.complete()).isPositive());
	}

}
