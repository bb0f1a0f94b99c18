package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.GapMeter;
import io.github.incrementalrebalance.testkit.HandOverTimeline;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.RestoreThrottle;
import io.github.incrementalrebalance.testkit.RestoredRecords;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.ThrottledRestoreSupplier;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The seed's scale-down on a real broker: three instances under exactly-once, 100 x {@code acceptable.recovery.lag}
 * records of state per task, a producer running throughout, restores throttled the same way in both runs (a slower
 * disk), the assignor's safety-net follow-up set to 5 minutes so every move comes from the members' own triggers.
 * b is asked to leave: it keeps processing while learners warm up on a and c, then hands over and closes; the new
 * owners restore at most the threshold. The same group closing b with a real leave-group but no learners
 * (kafka-tuned) stalls b's tasks for their whole restore.
 */
@Tag(TestTags.BROKER)
@Tag(TestTags.CLIENT_LINE)
class ScaleDownDrainIntegrationTests {

	private static final int PARTITIONS = 6;

	private static final long ACCEPTABLE_LAG = 1_000;

	private static final int KEYS_PER_TASK = (int) (50 * ACCEPTABLE_LAG);

	private static final long RESTORE_RATE = 12_500;

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@Test
	void leavingMemberHandsItsTasksToWarmLearnersAndStallsThemLessThanAPlainLeave() {
		Duration learners = drainWithLearners();
		Duration tuned = leaveWithoutLearners();
		System.out.printf("Longest stall of b's tasks: %d ms drained through learners, %d ms kafka-tuned "
				+ "(real leave-group, no learners), restores throttled to %d records/s in both%n", learners.toMillis(),
				tuned.toMillis(), RESTORE_RATE);
		assertThat(learners).isLessThan(tuned);
	}

	private Duration drainWithLearners() {
		CountingApplication run = new CountingApplication(broker, "drain-learners", PARTITIONS);
		try (TrackingProducer producer = run.producer(); StreamsLauncher launcher = launcher(run)) {
			StreamsInstance a = startMember(launcher, "a");
			StreamsInstance b = startMember(launcher, "b");
			StreamsInstance c = startMember(launcher, "c");
			run.loadAndSettle(producer, KEYS_PER_TASK, a, b, c);
			Set<TaskId> ofB = b.activeTasks();
			assertThat(ofB).isNotEmpty();
			Instant askedAt = Instant.now();

			assertThat(b.runtime().leave(Optional.empty(), "test")).isTrue();

			await("b drained and closed").atMost(Duration.ofMinutes(2))
				.until(() -> b.runtime().state() == MemberState.CLOSED);
			assertThat(b.kafkaStreams().state()).isEqualTo(KafkaStreams.State.NOT_RUNNING);
			await("a and c run every task").atMost(Duration.ofMinutes(1))
				.until(() -> StreamsInstance.allRunning(a, c)
						&& StreamsInstance.activeTasksOf(a, c).size() == PARTITIONS
						&& run.gapMeter().allProcessedSince(ofB, Instant.now().minusMillis(300)));
			for (TaskId task : ofB) {
				assertThat(run.gapMeter().processedBy(task, "b", askedAt.plusMillis(500)))
					.as("b kept processing %s while its learner warmed up", task).isPositive();
			}
			RestoredRecords.assertRestoredAtPromotionAtMost(ACCEPTABLE_LAG, ofB, a.restoredRecords(), c.restoredRecords());
			GapMeter.Gap stall = run.gapMeter().longestGapOf(ofB, askedAt, Instant.now());
			HandOverTimeline.of(stall, List.of(a, b, c)).ifPresent(System.out::println);
			run.verifyCounts(producer);
			return stall.length();
		}
	}

	private Duration leaveWithoutLearners() {
		CountingApplication run = new CountingApplication(broker, "drain-tuned", PARTITIONS);
		try (TrackingProducer producer = run.producer(); StreamsLauncher launcher = launcher(run)) {
			StreamsInstance a = startPlain(launcher, "a");
			StreamsInstance b = startPlain(launcher, "b");
			StreamsInstance c = startPlain(launcher, "c");
			run.loadAndSettle(producer, KEYS_PER_TASK, a, b, c);
			Set<TaskId> ofB = b.activeTasks();
			Instant closedAt = Instant.now();

			b.close();

			await("a and c run every task").atMost(Duration.ofMinutes(2))
				.until(() -> StreamsInstance.allRunning(a, c)
						&& StreamsInstance.activeTasksOf(a, c).size() == PARTITIONS
						&& run.gapMeter().allProcessedSince(ofB, Instant.now().minusMillis(300)));
			Duration stall = run.gapMeter().longestGap(ofB, closedAt, Instant.now());
			run.verifyCounts(producer);
			return stall;
		}
	}

	private static StreamsInstance startMember(StreamsLauncher launcher, String name) {
		RestoreThrottle throttle = RestoreThrottle.of(RESTORE_RATE);
		return launcher.instance(name)
			.restoreThrottle(throttle)
			.memberRuntime()
			.start();
	}

	private static StreamsInstance startPlain(StreamsLauncher launcher, String name) {
		RestoreThrottle throttle = RestoreThrottle.of(RESTORE_RATE);
		return launcher.instance(name)
			.clientSupplier((supplier) -> new MemberClientSupplier(new ThrottledRestoreSupplier(supplier, throttle)))
			.start();
	}

	private StreamsLauncher launcher(CountingApplication application) {
		return application.launcher(this.stateRoot.resolve(application.applicationId()))
			.property(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2)
			.property(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, ACCEPTABLE_LAG)
			.property(LearnerConfig.LEARNER_PROBE_INTERVAL_MS_CONFIG, Duration.ofMinutes(5).toMillis());
	}

}
