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
 * Availability during a host swap (2 instances replaced by 2 new ones), on the same data in one run. Every task moves,
 * so the "other tasks" columns stay empty. Run on demand: see {@code benchmarks/README.md}.
 */
class HostSwapBenchmark {

	@RegisterExtension
	static final KafkaBroker broker = new KafkaBroker();

	@TempDir
	Path stateRoot;

	@Test
	void everyStrategyOnTheSameData() {
		BenchmarkGroup.Settings settings = BenchmarkGroup.Settings.fromSystemProperties();
		List<AvailabilityResult> results = new ArrayList<>();
		for (Strategy strategy : List.of(Strategy.KAFKA_DEFAULT, Strategy.KAFKA_TUNED, Strategy.KAFKA_STANDBY,
				Strategy.LEARNER_CONSERVATIVE)) {
			results.add(HostSwap.run(broker, this.stateRoot, strategy, settings));
		}
		StringBuilder table = new StringBuilder(AvailabilityResult.header());
		results.forEach((result) -> table.append('\n').append(result.row()));
		ResultsFile.append("Host swap, " + Instant.now() + ": " + settings.describe(), table.toString());
		assertThat(results).allSatisfy((result) -> assertThat(result.complete()).isPositive());
	}

}
