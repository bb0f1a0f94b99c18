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
 * Availability and speed of a scale-up (2 to 3 instances): Kafka's warm-ups, with and without standbys, against
 * learners, on the same data in one run. How an instance closes does not matter here, so kafka-default and the eager
 * learners (which differ from their siblings only in a leave) are not run. Run on demand: see
 * {@code benchmarks/README.md}.
 */
class ScaleUpBenchmark {

	@RegisterExtension
	static final KafkaBroker broker = new KafkaBroker();

	@TempDir
	Path stateRoot;

	@Test
	void kafkasWarmUpsAndLearnersOnTheSameData() {
		BenchmarkGroup.Settings settings = BenchmarkGroup.Settings.fromSystemProperties();
		List<AvailabilityResult> results = new ArrayList<>();
		for (Strategy strategy : List.of(Strategy.KAFKA_TUNED, Strategy.KAFKA_STANDBY, Strategy.LEARNER_CONSERVATIVE)) {
			results.add(ScaleUp.run(broker, this.stateRoot, strategy, settings));
		}
		StringBuilder table = new StringBuilder(AvailabilityResult.header());
		results.forEach((result) -> table.append('\n').append(result.row()));
		ResultsFile.append("Scale-up, " + Instant.now() + ": " + settings.describe(), table.toString());
		assertThat(results).allSatisfy((result) -> assertThat(result.complete()).isPositive());
	}

}
