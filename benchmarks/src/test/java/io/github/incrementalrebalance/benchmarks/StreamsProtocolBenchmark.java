package io.github.incrementalrebalance.benchmarks;

import java.nio.file.Path;

import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.TestTags;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scale-down under Kafka's streams protocol, on a Kafka 4.4 broker of the test kit: Kafka Streams' own close,
 * the same with one caught-up standby of every task, and the drain on standbys, side by side in {@link Rounds}.
 * Needs Kafka 4.4 clients, the default stack's. On demand: see {@code benchmarks/README.md}.
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
		// the streams groups' own timings (BenchmarkGroup): Kafka's defaults there are a 5 s heartbeat
		String description = settings.describe()
			.replace("3 s/45 s (Kafka's defaults)", "5 s/45 s (Kafka's defaults for streams groups)")
			.replace("500 ms/6 s", "1 s/6 s") + ", group.protocol=streams on Kafka 4.4";
		Rounds.run(new ScaleDown(SCENARIO), Strategy.streamsProtocol(), settings, description, broker, this.stateRoot);
	}

}
