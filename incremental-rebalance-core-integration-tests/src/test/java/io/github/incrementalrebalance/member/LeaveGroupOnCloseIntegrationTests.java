package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.function.UnaryOperator;

import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.GapMeter;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A dynamic member that closes, with Kafka's own session and heartbeat settings: with the member supplier its tasks
 * resume elsewhere within heartbeats; plain Kafka Streams sends no LeaveGroup and the group waits out
 * {@code session.timeout.ms} (45 s, KAFKA-16514).
 */
@Tag(TestTags.BROKER)
@Tag(TestTags.CLIENT_LINE)
class LeaveGroupOnCloseIntegrationTests {

	private static final int PARTITIONS = 6;

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@Test
	void closingMemberHandsItsTasksOverWithinSecondsInsteadOfTheSessionTimeout() {
		Duration withSupplier = gapOfClosedMembersTasks("leave-member", MemberClientSupplier::new);
		Duration plain = gapOfClosedMembersTasks("leave-plain", UnaryOperator.identity());
		double ratio = plain.toMillis() / (double) withSupplier.toMillis();
		System.out.printf("Closed member's tasks stalled %d ms with the member supplier, %d ms with plain Kafka "
				+ "Streams (%.1fx)%n", withSupplier.toMillis(), plain.toMillis(), ratio);
		assertThat(withSupplier).isLessThan(Duration.ofSeconds(10));
		assertThat(plain).isGreaterThanOrEqualTo(Duration.ofSeconds(40));
		assertThat(ratio).isGreaterThan(5.0);
	}

	private Duration gapOfClosedMembersTasks(String applicationId, UnaryOperator<KafkaClientSupplier> supplier) {
		CountingApplication application = new CountingApplication(broker, applicationId, PARTITIONS);
		GapMeter gapMeter = application.gapMeter();
		try (TrackingProducer producer = application.producer();
				StreamsLauncher launcher = application.launcher(this.stateRoot.resolve(applicationId))
					.kafkaDefaultGroupTimings()) {
			producer.startMarkers(PARTITIONS, TrackingProducer.MARKER_INTERVAL);
			StreamsInstance a = launcher.instance("a").clientSupplier(supplier).start();
			StreamsInstance b = launcher.instance("b").clientSupplier(supplier).start();
			StreamsInstance c = launcher.instance("c").clientSupplier(supplier).start();
			await("three running instances sharing all tasks").atMost(Duration.ofMinutes(2))
				.until(() -> StreamsInstance.allRunning(a, b, c)
						&& StreamsInstance.activeTasksOf(a, b, c).size() == PARTITIONS
						&& !b.activeTasks().isEmpty());
			Set<TaskId> moving = b.activeTasks();
			Instant closedAt = Instant.now();
			b.close();
			// processed again by a survivor: b itself processes until its close returns, so markers since the close
			// began say nothing of the hand-over
			await("tasks of the closed member processing again on a survivor").atMost(Duration.ofMinutes(2))
				.until(() -> moving.stream()
					.allMatch((task) -> gapMeter.processedBy(task, "a", closedAt)
							+ gapMeter.processedBy(task, "c", closedAt) > 0)
						&& gapMeter.allProcessedSince(moving, Instant.now().minusMillis(300)));
			return gapMeter.longestGap(moving, closedAt, Instant.now());
		}
	}

}
