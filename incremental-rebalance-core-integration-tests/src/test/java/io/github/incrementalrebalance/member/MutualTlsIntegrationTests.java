package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.ExactCountVerifier;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A broker that only speaks TLS and requires each client's certificate: the application's settings (security
 * protocol, key and trust stores) reach the control topic's clients too, and a leave drains through learners.
 */
@Tag(TestTags.BROKER)
@Tag(TestTags.CLIENT_LINE)
class MutualTlsIntegrationTests {

	private static final String APPLICATION = "tls";

	private static final int PARTITIONS = 4;

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.withMutualTls();

	@TempDir
	Path stateRoot;

	@Test
	void controlTopicIsReadOverTlsAndALeaveDrainsThroughLearners() {
		CountingApplication application = new CountingApplication(broker, APPLICATION, PARTITIONS);
		TrackingProducer producer = application.producer(broker.userClientConfig());
		StreamsLauncher launcher = application.launcher(this.stateRoot.resolve(APPLICATION), broker.userClientConfig());
		try (launcher; producer) {
			StreamsInstance a = launcher.instance("a").memberRuntime().start();
			StreamsInstance b = launcher.instance("b").memberRuntime().start();
			await("the group runs every task with its plan").atMost(Duration.ofMinutes(1))
				.until(() -> StreamsInstance.allRunning(a, b) && StreamsInstance.planSettled(a, b)
						&& StreamsInstance.activeTasksOf(a, b).size() == PARTITIONS);
			assertThat(a.runtime().controlTopicProblem()).isEmpty();
			producer.load(PARTITIONS, 200, 1);

			assertThat(b.runtime().leave(Optional.empty(), "test")).isTrue();

			b.awaitDrainedWarm(Duration.ofMinutes(1));
			await().atMost(Duration.ofSeconds(30)).until(() -> StreamsInstance.activeTasksOf(a).size() == PARTITIONS);
			ExactCountVerifier.assertExactCounts(broker.userClientConfig(), application.output(),
					producer.acknowledgedCounts(), Duration.ofMinutes(1));
		}
	}

}
