package io.github.incrementalrebalance.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.SampleProcess;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.util.FileSystemUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample's jar processed ahead of time (the Boot plugin's {@code process-aot}, what a JVM AOT cache, CDS or a
 * native image uses) and run with its AOT initializers, each switch flipped from the value the build saw: Spring AOT
 * decides bean conditions at build time, so a switch that was one would be ignored here. The build saw the sample's
 * {@code application.yml}: drain on shutdown and warm readiness on, the context closed once drained, the starter on.
 */
@Tag(TestTags.BROKER)
class AotSwitchesIT {

	/** A broker of its own: the sample's topics and group are fixed, and the other ITs start from them empty. */
	@RegisterExtension
	static final KafkaBroker broker = new KafkaBroker();

	private static final List<String> AOT = List.of("-Dspring.aot.enabled=true");

	/** Below the state a task has, so that b learns its share before it takes it. */
	private static final String ACCEPTABLE_LAG = "--spring.kafka.streams.properties.acceptable.recovery.lag=100";

	/** Where the processes keep their state and logs, kept after the run. */
	private final Path work = Path.of("target", "aot-switches").toAbsolutePath();

	@Test
	void theAotProcessedSampleHonoursTheSwitchesItRunsWith() throws Exception {
		FileSystemUtils.deleteRecursively(this.work);
		Files.createDirectories(this.work);
		List<SampleProcess> processes = new ArrayList<>();
		try (TrackingProducer producer = new TrackingProducer(broker.bootstrapServers(), PageViews.INPUT)) {
			SampleProcess a = launch(processes, "a", ACCEPTABLE_LAG,
					"--incremental-rebalance.drain.on-drained=stop-streams");
			await("a runs every task").atMost(Duration.ofMinutes(2)).until(() -> a.active() == PageViews.PARTITIONS);
			assertThat(Files.readString(a.log())).as("run with its AOT initializers")
				.contains("Starting AOT-processed SampleApplication");
			producer.load(PageViews.PARTITIONS, 2_000, 1);

			SampleProcess b = launch(processes, "b", ACCEPTABLE_LAG, "--incremental-rebalance.readiness.warm=false",
					"--incremental-rebalance.drain.on-shutdown=false", "--sample.restore-rate=1000");
			await("b learns its share slowly and reports ready all the same (readiness.warm=false)")
				.atMost(Duration.ofMinutes(2))
				.until(() -> b.rebalance().contains("LEARNING") && b.ready());
			await("b holds its share").atMost(Duration.ofMinutes(2))
				.until(() -> b.active() > 0 && !b.rebalance().contains("LEARNING") && !a.rebalance().contains("LEARNING"));

			assertThat(a.leave()).as("a asked to leave").isEqualTo(202);
			await("a drained").atMost(Duration.ofMinutes(1))
				.until(() -> Files.readString(a.log()).contains("a is closed (drained)"));
			await("a stays up, not ready, its Kafka Streams stopped (drain.on-drained=stop-streams)")
				.atMost(Duration.ofSeconds(10))
				.during(Duration.ofSeconds(3))
				.until(() -> a.process().isAlive() && !a.ready() && !a.rebalance().isEmpty());
			await("b runs every task").atMost(Duration.ofMinutes(1)).until(() -> b.active() == PageViews.PARTITIONS);

			long logOfB = b.logSize();
			b.process().destroy();
			assertThat(b.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
			assertThat(b.logSince(logOfB)).as("b's SIGTERM closes it without a drain (drain.on-shutdown=false)")
				.doesNotContain("b is leaving");

			SampleProcess c = launch(processes, "c", "--incremental-rebalance.enabled=false",
					"--spring.kafka.streams.application-id=aot-disabled");
			await("c runs its Kafka Streams without the starter (incremental-rebalance.enabled=false)")
				.atMost(Duration.ofMinutes(2))
				.until(() -> Files.readString(c.log()).contains("incremental-rebalance.enabled=false: no Kafka Streams "
						+ "of this application are wired"));
			assertThat(c.rebalance()).as("no member runtime").contains("\"applications\":[]");
		}
		finally {
			processes.forEach((process) -> process.process().destroyForcibly());
		}
	}

	private SampleProcess launch(List<SampleProcess> processes, String name, String... arguments) throws IOException {
		SampleProcess process = SampleProcess.launch(broker, this.work, name, AOT, List.of(arguments));
		processes.add(process);
		return process;
	}

}
