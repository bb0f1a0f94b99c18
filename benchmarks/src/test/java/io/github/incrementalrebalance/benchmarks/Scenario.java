package io.github.incrementalrebalance.benchmarks;

import java.nio.file.Path;

import io.github.incrementalrebalance.testkit.KafkaBroker;

/**
 * A change to a group whose availability is measured: instances leave, join or are replaced.
 */
interface Scenario {

	/**
	 * Names the run: its application id is {@code <name>-<strategy>}.
	 * @return the scenario's name
	 */
	String name();

	/**
	 * Start the group's instances, make the change, measure it.
	 * @param group the group, for one strategy
	 * @return what was measured
	 */
	AvailabilityResult run(BenchmarkGroup group);

	/**
	 * Run the scenario for one strategy on its own group.
	 * @param scenario the scenario
	 * @param broker the broker
	 * @param stateRoot where instances keep state
	 * @param strategy the strategy
	 * @param settings the size of the run
	 * @return what was measured
	 */
	static AvailabilityResult run(Scenario scenario, KafkaBroker broker, Path stateRoot, Strategy strategy,
			BenchmarkGroup.Settings settings) {
		return run(scenario, 1, broker, stateRoot, strategy, settings);
	}

	/**
	 * As {@link #run(Scenario, KafkaBroker, Path, Strategy, BenchmarkGroup.Settings)}, in one of several rounds: each
	 * round's group has topics and state of its own ({@code <name>-<round>-<strategy>} after the first).
	 * @param round the round, from 1
	 */
	static AvailabilityResult run(Scenario scenario, int round, KafkaBroker broker, Path stateRoot, Strategy strategy,
			BenchmarkGroup.Settings settings) {
		String name = (round == 1) ? scenario.name() : scenario.name() + "-" + round;
		try (BenchmarkGroup group = new BenchmarkGroup(broker, stateRoot.resolve(name), name, strategy, settings)) {
			return scenario.run(group);
		}
	}

}
