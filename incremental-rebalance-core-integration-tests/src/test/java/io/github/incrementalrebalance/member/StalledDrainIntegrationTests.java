package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.RestoreThrottle;
import io.github.incrementalrebalance.testkit.RestoredRecords;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A drain whose learners get nowhere says so instead of leaving silently for ever: b leaves while a's restores are
 * held to a record a second (a disk that cannot keep up), so a's learners come no closer; after the stall timeout b's
 * drain is stalled, with the tasks and their lag, and b keeps running them. Once a's restores run again the drain
 * ends drained, with nothing restored at promotion beyond the acceptable lag and the counts exact.
 */
@Tag(TestTags.BROKER)
class StalledDrainIntegrationTests {

	private static final int PARTITIONS = 2;

	private static final long ACCEPTABLE_LAG = 1_000;

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@Test
	void drainWhoseLearnersGetNowhereSaysItIsStalledAndDrainsOnceTheyMoveAgain() {
		CountingApplication run = new CountingApplication(broker, "stalled-drain", PARTITIONS);
		RestoreThrottle slowDisk = RestoreThrottle.unlimited();
		try (TrackingProducer producer = run.producer();
				StreamsLauncher launcher = run.launcher(this.stateRoot)
					.property(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, ACCEPTABLE_LAG)
					.property(LearnerConfig.DRAIN_STALL_TIMEOUT_MS_CONFIG, 3_000L)
					.property(LearnerConfig.PROGRESS_INTERVAL_MS_CONFIG, 500L)
					.property(LearnerConfig.LEARNER_PROBE_INTERVAL_MS_CONFIG, Duration.ofMinutes(5).toMillis())) {
			StreamsInstance a = launcher.instance("a").restoreThrottle(slowDisk).memberRuntime().start();
			StreamsInstance b = launcher.instance("b").memberRuntime().start();
			run.loadAndSettle(producer, (int) (20 * ACCEPTABLE_LAG), a, b);
			Set<TaskId> ofB = b.activeTasks();
			assertThat(ofB).isNotEmpty();
			slowDisk.set(1);

			b.runtime().leave(Optional.empty(), "test");

			await("b's drain reported stalled").atMost(Duration.ofMinutes(1))
				.until(() -> b.runtime().drainStalled().isPresent());
			assertThat(b.runtime().drainStalled()).hasValueSatisfying((why) -> assertThat(why)
				.startsWith("no learner of [")
				.contains("came closer to ready for PT3S (lag "));
			assertThat(b.runtime().state()).as("a stall is no reason for a cold move").isEqualTo(MemberState.LEAVING);
			assertThat(b.activeTasks()).as("b still runs its tasks").containsAll(ofB);

			slowDisk.release();

			await("b drained and closed").atMost(Duration.ofMinutes(2))
				.until(() -> b.runtime().state() == MemberState.CLOSED);
			assertThat(b.runtime().drainOutcome()).contains(DrainOutcome.of(DrainOutcome.Reason.LEARNERS_READY, 0));
			assertThat(b.runtime().drainStalled()).isEmpty();
			await("a runs every task").atMost(Duration.ofMinutes(1))
				.until(() -> StreamsInstance.allRunning(a) && a.activeTasks().size() == PARTITIONS);
			RestoredRecords.assertRestoredAtPromotionAtMost(ACCEPTABLE_LAG, ofB, a.restoredRecords());
			run.verifyCounts(producer);
		}
	}

}
