package io.github.incrementalrebalance.chaos;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;

import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.TestTags;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the build runs of the chaos run: a handful of events on a fixed seed, small state.
 */
@Tag(TestTags.BROKER)
class ChaosSmokeTests {

	@RegisterExtension
	static final KafkaBroker broker = new KafkaBroker();

	@TempDir
	Path stateRoot;

	@Test
	void aFewRandomScaleEventsLoseNothingAndEveryLeaveIsAccountedFor() throws Exception {
		ChaosSettings settings = new ChaosSettings(4, 20261201L, 3, 2_000, 2_000, 50, Duration.ofMinutes(2), false,
				Duration.ofMillis(500), Duration.ofSeconds(6), 1, Set.of());
		ChaosReport report;
		try (ChaosGroup group = new ChaosGroup(broker, this.stateRoot, settings)) {
			report = new ChaosRunner(group, settings).run();
		}
		System.out.println(report.summary());
		assertThat(report.eventLog()).hasSize(4).allSatisfy((event) -> {
			assertThat(event.converged()).as("event %d (%s) settled", event.index(), event.kind()).isTrue();
			assertThat(event.outcomes()).allSatisfy((outcome) -> assertThat(outcome.outcome()).isNotNull());
		});
		assertThat(report.lost()).isZero();
		assertThat(report.duplicated()).isZero();
		assertThat(report.summary()).startsWith("chaos: seed=20261201 events=4 lost=0 duplicated=0 converged=4/4 unasked=0");
	}

}
