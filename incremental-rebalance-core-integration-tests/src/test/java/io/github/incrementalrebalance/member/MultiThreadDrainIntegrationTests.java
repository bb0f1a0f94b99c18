package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.RestoreThrottle;
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
 * A drain of an instance with four stream threads at Kafka's default heartbeat (3 s) and session (45 s): each thread's
 * main consumer is a member of the group, and a round completes only once all of them have joined it. One of three
 * instances leaves; its tasks move to warm learners, and neither they nor the tasks that stay stall for a heartbeat.
 */
@Tag(TestTags.BROKER)
class MultiThreadDrainIntegrationTests {

	private static final int THREADS = 4;

	private static final int PARTITIONS = 12;

	private static final long ACCEPTABLE_LAG = 1_000;

	private static final int KEYS_PER_TASK = (int) (10 * ACCEPTABLE_LAG);

	private static final Duration STALL_BOUND = Duration.ofSeconds(1);

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@Test
	void drainOfAFourThreadInstanceStallsNoTaskForAHeartbeat() {
		CountingApplication run = new CountingApplication(broker, "drain-threads", PARTITIONS);
		try (TrackingProducer producer = run.producer(); StreamsLauncher launcher = launcher(run)) {
			StreamsInstance a = start(launcher, "a");
			StreamsInstance b = start(launcher, "b");
			StreamsInstance c = start(launcher, "c");
			run.loadAndSettle(producer, KEYS_PER_TASK, a, b, c);
			Set<TaskId> ofB = b.activeTasks();
			System.out.printf("Tasks before the leave: a %s, b %s, c %s%n", a.activeTasks(), ofB, c.activeTasks());
			assertThat(ofB).isNotEmpty();
			Set<TaskId> staying = new HashSet<>(StreamsInstance.activeTasksOf(a, c));
			Instant askedAt = Instant.now();

			assertThat(b.runtime().leave(Optional.empty(), "test")).isTrue();

			await("b drained and closed").atMost(Duration.ofMinutes(2))
				.until(() -> b.runtime().state() == MemberState.CLOSED);
			assertThat(b.runtime().drainOutcome()).hasValueSatisfying(
					(outcome) -> assertThat(outcome.kind()).isEqualTo(DrainOutcome.Kind.DRAINED));
			await("a and c run every task").atMost(Duration.ofMinutes(1))
				.until(() -> StreamsInstance.allRunning(a, c)
						&& StreamsInstance.activeTasksOf(a, c).size() == PARTITIONS
						&& run.gapMeter().allProcessedSince(ofB, Instant.now().minusMillis(300)));
			Instant settled = Instant.now();
			Duration moved = run.gapMeter().longestGap(ofB, askedAt, settled);
			Duration unmoved = run.gapMeter().longestGap(staying, askedAt, settled);
			System.out.printf("Drain of a %d-thread instance at Kafka's default heartbeat: moved tasks stalled %d ms, "
					+ "unmoved ones %d ms%n", THREADS, moved.toMillis(), unmoved.toMillis());
			for (TaskId task : ofB) {
				long restored = a.restoredRecords().restoredInto(task) + c.restoredRecords().restoredInto(task);
				assertThat(restored).as("records restored at promotion of %s", task).isLessThanOrEqualTo(ACCEPTABLE_LAG);
			}
			assertThat(moved).as("longest stall of b's tasks").isLessThanOrEqualTo(STALL_BOUND);
			assertThat(unmoved).as("longest stall of a's and c's tasks").isLessThanOrEqualTo(STALL_BOUND);
			run.verifyCounts(producer);
		}
	}

	private static StreamsInstance start(StreamsLauncher launcher, String name) {
		return launcher.instance(name)
			.threads(THREADS)
			.restoreThrottle(RestoreThrottle.of(5_000))
			.memberRuntime()
			.start();
	}

	private StreamsLauncher launcher(CountingApplication application) {
		return application.launcher(this.stateRoot.resolve(application.applicationId()))
			.kafkaDefaultGroupTimings()
			.property(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2)
			.property(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, ACCEPTABLE_LAG)
			.property(LearnerConfig.LEARNER_PROBE_INTERVAL_MS_CONFIG, Duration.ofMinutes(5).toMillis());
	}

}
