package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.config.StartRefusedException;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Two applications configured with one control topic (a shared binder configuration, a copied
 * {@code control-topic.name}): each leader would delete the other's plans and leaves. The second to start is refused,
 * naming both applications and the setting; the first runs on as before, its leave drains warm.
 */
@Tag(TestTags.BROKER)
class SharedControlTopicIntegrationTests {

	private static final int PARTITIONS = 4;

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@Test
	void aSecondApplicationOnTheFirstsControlTopicIsRefusedNamingBothAndTheFirstDrainsOn() {
		CountingApplication orders = new CountingApplication(broker, "shared-orders", PARTITIONS);
		CountingApplication payments = new CountingApplication(broker, "shared-payments", PARTITIONS);
		try (TrackingProducer producer = orders.producer();
				StreamsLauncher ofOrders = orders.launcher(this.stateRoot.resolve("orders"));
				StreamsLauncher ofPayments = payments.launcher(this.stateRoot.resolve("payments"))
					.property(LearnerConfig.CONTROL_TOPIC_CONFIG, "shared-orders-rebalance-control")) {
			StreamsInstance a = ofOrders.instance("a").memberRuntime().start();
			StreamsInstance b = ofOrders.instance("b").memberRuntime().start();
			orders.loadAndSettle(producer, 500, a, b);
			await("a plan of shared-orders published").atMost(Duration.ofSeconds(30))
				.until(() -> a.runtime().controlView().planEpoch().isPresent());

			assertThatExceptionOfType(StartRefusedException.class)
				.isThrownBy(() -> ofPayments.instance("p").memberRuntime().start())
				.satisfies((refused) -> assertThat(refused.setting())
					.isEqualTo(LearnerConfig.CONTROL_TOPIC_CONFIG + "=shared-orders-rebalance-control"))
				.withMessageContaining("holds the plans of application shared-orders as well as shared-payments's")
				.withMessageContaining("accepted: a control topic of shared-payments's own: unset for "
						+ "shared-payments-rebalance-control");

			assertThat(a.runtime().controlTopicProblem()).as("the first application's view of its topic").isEmpty();
			Set<TaskId> ofB = b.activeTasks();
			assertThat(b.runtime().leave(Optional.empty(), "test")).isTrue();
			b.awaitDrainedWarm(Duration.ofMinutes(1));
			await("a runs every task").atMost(Duration.ofMinutes(1))
				.until(() -> StreamsInstance.allRunning(a) && a.activeTasks().size() == PARTITIONS
						&& orders.gapMeter().allProcessedSince(ofB, Instant.now().minusMillis(300)));
			orders.verifyCounts(producer);
		}
	}

}
