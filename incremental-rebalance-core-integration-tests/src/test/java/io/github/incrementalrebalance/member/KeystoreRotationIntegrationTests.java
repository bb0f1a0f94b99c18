package io.github.incrementalrebalance.member;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Optional;

import ch.qos.logback.classic.Level;
import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.ExactCountVerifier;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.LogCapture;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.common.config.SslConfigs;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A member whose keystore is missing for a while as it starts, as during a certificate rotation that replaces the
 * file: Kafka Streams' clients were made before, the control topic's admin cannot be made. The member says why it
 * cannot use the control topic, with the cause, tries again, and reads the topic once the keystore is back; a leave
 * then drains through learners.
 */
@Tag(TestTags.BROKER)
class KeystoreRotationIntegrationTests {

	private static final String APPLICATION = "rotation";

	private static final int PARTITIONS = 4;

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.withMutualTls();

	@TempDir
	Path stateRoot;

	@TempDir
	Path stores;

	@Test
	void aControlTopicClientThatCannotBeMadeIsReportedAndMadeAgainOnceItsKeystoreIsBack() throws Exception {
		CountingApplication application = new CountingApplication(broker, APPLICATION, PARTITIONS);
		Path keystore = this.stores.resolve("b.p12");
		Path rotating = this.stores.resolve("b.p12.rotating");
		Files.copy(Path.of(broker.userClientConfig().get(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG).toString()), keystore);
		TrackingProducer producer = application.producer(broker.userClientConfig());
		StreamsLauncher launcher = application.launcher(this.stateRoot.resolve(APPLICATION), broker.userClientConfig());
		launcher.property(LearnerConfig.CONTROL_TOPIC_TIMEOUT_MS_CONFIG, 5_000);
		try (launcher; producer; LogCapture log = LogCapture.of(ControlTopicLifecycle.class)) {
			StreamsInstance a = launcher.instance("a").memberRuntime().start();
			StreamsInstance b = launcher.instance("b")
				.memberRuntime()
				.property(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, keystore.toString())
				// Kafka Streams' clients have read the keystore; the member's own are made once it starts
				.onCreated((streams, topology) -> move(keystore, rotating))
				.start();

			await("b says why it cannot use the control topic").atMost(Duration.ofSeconds(30))
				.untilAsserted(() -> assertThat(b.runtime().controlTopicProblem()).hasValueSatisfying(
						(problem) -> assertThat(problem).contains("cannot be checked").contains(keystore.toString())));
			assertThat(log.messages(Level.WARN)).anySatisfy((warning) -> assertThat(warning)
				.contains("cannot be checked").contains(keystore.toString()).contains("trying again"));

			move(rotating, keystore);
			await("the group runs every task with its plan, b's control topic read").atMost(Duration.ofMinutes(1))
				.until(() -> b.runtime().controlTopicProblem().isEmpty() && StreamsInstance.allRunning(a, b)
						&& StreamsInstance.planSettled(a, b) && StreamsInstance.activeTasksOf(a, b).size() == PARTITIONS);
			producer.load(PARTITIONS, 200, 1);

			assertThat(b.runtime().leave(Optional.empty(), "test")).isTrue();

			b.awaitDrainedWarm(Duration.ofMinutes(1));
			ExactCountVerifier.assertExactCounts(broker.userClientConfig(), application.output(),
					producer.acknowledgedCounts(), Duration.ofMinutes(1));
		}
	}

	private static void move(Path from, Path to) {
		try {
			Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
