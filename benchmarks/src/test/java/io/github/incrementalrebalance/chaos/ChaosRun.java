package io.github.incrementalrebalance.chaos;

import java.nio.file.Path;

import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.TestTags;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chaos run, on demand (see {@code benchmarks/README.md}): a seeded random sequence of scale events under
 * exactly-once, nothing lost or counted twice, every event settling, every leave accounted for. Writes
 * {@code target/chaos-report.json} and prints one line starting with {@code chaos:}.
 */
@Tag(TestTags.BROKER)
class ChaosRun {

	/**
	 * One broker or three, which the run bounces; the members reach them through a proxy that injects faults, when the
	 * run has them.
	 */
	@RegisterExtension
	static final KafkaBroker broker = cluster();

	@TempDir
	Path stateRoot;

	private static KafkaBroker cluster() {
		if (ChaosSettings.brokersFromSystemProperties() == 3) {
			return ChaosSettings.faultsFromSystemProperties() ? KafkaBroker.threeBrokersWithFaultProxy()
					: KafkaBroker.threeBrokers();
		}
		return KafkaBroker.withFaultProxy();
	}

	@Test
	void randomScaleEventsLoseNothingAndEveryLeaveIsAccountedFor() throws Exception {
		ChaosSettings settings = ChaosSettings.fromSystemProperties();
		System.out.println("chaos: seed " + settings.seed() + " (replay with -Dchaos.seed=" + settings.seed() + ")");
		ChaosReport report;
		try (ChaosGroup group = new ChaosGroup(broker, this.stateRoot, settings)) {
			report = new ChaosRunner(group, settings).run();
		}
		report.write(Path.of("target", "chaos-report.json"));
		System.out.println(report.summary());
		assertThat(report.lost()).as("keys counted fewer times than sent").isZero();
		assertThat(report.duplicated()).as("records counted twice").isZero();
		assertThat(report.notConverged()).as("events after which the group did not settle").isZero();
		assertThat(report.unaskedLeaves()).as("instances that drained without being asked").isZero();
	}

}
