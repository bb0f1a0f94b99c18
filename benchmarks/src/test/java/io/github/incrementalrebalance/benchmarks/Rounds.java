package io.github.incrementalrebalance.benchmarks;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import io.github.incrementalrebalance.testkit.KafkaBroker;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A scenario's strategies side by side, in rounds ({@code -Dbenchmark.repetitions}, 3 by default) with every strategy
 * in turn in each, so that each meets the machine as the others do; then the results published: the results file's
 * table and timelines, and the JSON that the READMEs' tables and charts are made from.
 */
final class Rounds {

	private Rounds() {
	}

	/**
	 * Run and publish.
	 * @param scenario the scenario
	 * @param strategies the strategies, in the order each round runs them
	 * @param settings the run's size and group timings
	 * @param description the settings in the run's own words
	 * @param broker the broker
	 * @param stateRoot where the instances keep state
	 */
	static void run(Scenario scenario, List<Strategy> strategies, BenchmarkGroup.Settings settings,
			String description, KafkaBroker broker, Path stateRoot) {
		int repetitions = Integer.getInteger("benchmark.repetitions", 3);
		List<AvailabilityResult> results = new ArrayList<>();
		for (int round = 1; round <= repetitions; round++) {
			for (Strategy strategy : strategies) {
				results.add(Scenario.run(scenario, round, broker, stateRoot, strategy, settings));
			}
		}
		String told = description + ", " + repetitions + " rounds";
		StringBuilder table = new StringBuilder(AvailabilityResult.header());
		results.forEach((result) -> table.append('\n').append(result.row()));
		ResultsFile.append(scenario.name() + ", " + Instant.now() + ": " + told, table.toString());
		ResultsFile.append(scenario.name() + ", where the time went",
				results.stream().map(AvailabilityResult::breakdown).collect(Collectors.joining("\n\n")));
		ResultsJson.write(ResultsJson.DIRECTORY, scenario.name(), settings, told, results);
		assertThat(results).allSatisfy((result) -> assertThat(result.complete()).isPositive());
	}

}
