package io.github.incrementalrebalance.benchmarks;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.TestTags;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scale-down under Kafka's streams protocol, on a Kafka 4.4 broker of the test kit: Kafka Streams' own close,
 * the same with one caught-up standby of every task, and the drain on standbys, side by side in one run, repeated
 * ({@code -Dbenchmark.repetitions}, 3 by default) in rounds so that each strategy meets the machine as the others do.
 * Needs Kafka 4.4 clients: {@code ./mvnw -Pkafka-4.4 -pl benchmarks test -Dtest=StreamsProtocolBenchmark}. On demand:
 * see {@code benchmarks/README.md}.
 */
@Tag(TestTags.BROKER)
@EnabledIf("io.github.incrementalrebalance.testkit.KafkaBroker#servesStreamsGroups")
class StreamsProtocolBenchmark {

	static final String SCENARIO = "streams-scale-down";

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.forStreamsGroups();

	@TempDir
	Path stateRoot;

	@Test
	void scaleDown() {
		BenchmarkGroup.Settings settings = BenchmarkGroup.Settings.fromSystemProperties();
		int repetitions = Integer.getInteger("benchmark.repetitions", 3);
		List<AvailabilityResult> results = new ArrayList<>();
		for (int round = 1; round <= repetitions; round++) {
			for (Strategy strategy : Strategy.streamsProtocol()) {
				results.add(Scenario.run(new ScaleDown(SCENARIO + "-" + round), broker, this.stateRoot, strategy,
						settings));
			}
		}
		StringBuilder table = new StringBuilder(AvailabilityResult.header());
		results.forEach((result) -> table.append('\n').append(result.row()));
		// the streams groups' own timings (BenchmarkGroup): Kafka's defaults there are a 5 s heartbeat
		String description = settings.describe()
			.replace("3 s/45 s (Kafka's defaults)", "5 s/45 s (Kafka's defaults for streams groups)")
			.replace("500 ms/6 s", "1 s/6 s") + ", group.protocol=streams on Kafka 4.4, " + repetitions + " rounds";
		ResultsFile.append(SCENARIO + ", " + Instant.now() + ": " + description, table.toString());
		ResultsFile.append(SCENARIO + ", where the time went",
				results.stream().map(AvailabilityResult::breakdown).collect(Collectors.joining("\n\n")));
		ResultsJson.write(ResultsJson.DIRECTORY, SCENARIO, settings, description, results);
		assertThat(results).allSatisfy((result) -> assertThat(result.complete()).isPositive());
	}

}
