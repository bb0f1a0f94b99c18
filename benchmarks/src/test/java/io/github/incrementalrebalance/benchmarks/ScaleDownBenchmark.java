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
 * see {@code benchmarks/README.md}.
 */
class ScaleDownBenchmark {

	@RegisterExtension
	static final KafkaBroker broker = new KafkaBroker();

	@TempDir
	Path stateRoot;

	@Test
	void everyStrategyOnTheSameData() {
		BenchmarkGroup.Settings settings = BenchmarkGroup.Settings.fromSystemProperties();
		List<AvailabilityResult> results = new ArrayList<>();
		for (Strategy strategy : Strategy.values()) {
			results.add(ScaleDown.run(broker, this.stateRoot, strategy, settings));
		}
		StringBuilder table = new StringBuilder(AvailabilityResult.header());
		results.forEach((result) -> table.append('\n').append(result.row()));
		ResultsFile.append("Scale-down, " + Instant.now() + ": " + settings.describe(), table.toString());
		assertThat(results).allSatisfy((result) -> assertThat(result.complete()).isPositive());
	}

}
