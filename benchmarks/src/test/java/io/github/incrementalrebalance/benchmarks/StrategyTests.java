package io.github.incrementalrebalance.benchmarks;

import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * An experiment runs the strategies it names, and a name no scenario strategy has is refused with the ones it has.
 */
class StrategyTests {

	@AfterEach
	void clear() {
		System.clearProperty("benchmark.strategies");
	}

	@Test
	void everyStrategyOfTheScenarioRunsUnlessSomeAreNamed() {
		assertThat(Strategy.chosen(Strategy.classic())).isEqualTo(Strategy.classic());
	}

	@Test
	void theNamedStrategiesRunInTheScenariosOrder() {
		System.setProperty("benchmark.strategies", "learner-conservative, kafka-standby");

		assertThat(Strategy.chosen(Strategy.classic())).containsExactly(Strategy.KAFKA_STANDBY,
				Strategy.LEARNER_CONSERVATIVE);
	}

	@Test
	void aNameTheScenarioDoesNotRunIsRefusedNamingThoseItRuns() {
		System.setProperty("benchmark.strategies", "streams-drain");

		assertThatIllegalArgumentException()
			.isThrownBy(() -> Strategy.chosen(List.of(Strategy.KAFKA_TUNED, Strategy.LEARNER_CONSERVATIVE)))
			.withMessage("-Dbenchmark.strategies names 'streams-drain', which this scenario does not run; it runs "
					+ "[kafka-tuned, learner-conservative]");
	}

}
