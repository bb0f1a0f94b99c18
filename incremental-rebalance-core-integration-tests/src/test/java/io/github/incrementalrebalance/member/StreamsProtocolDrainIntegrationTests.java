package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import ch.qos.logback.classic.Level;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.GapMeter;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.LogCapture;
import io.github.incrementalrebalance.testkit.RestoreThrottle;
import io.github.incrementalrebalance.testkit.RestoredRecords;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A scale-down under Kafka's streams protocol ({@code group.protocol=streams}, Kafka 4.4 clients and broker), where the
 * broker assigns tasks and places standbys: three instances under exactly-once, 25 x {@code acceptable.recovery.lag}
 * records of state per task, restores throttled (a slower disk). Side by side in one run: Kafka Streams' own close
 * without standbys, and the drain, which hands over once every instance that stays holds a ready copy of each task.
 * (Kafka's close with standbys, where the broker may still move a task to an instance without its copy, is the
 * streams-protocol benchmark's: it measures, this test holds the drain to what it promises.)
 */
@Tag(TestTags.BROKER)
@Tag(TestTags.CLIENT_LINE)
@EnabledIf("io.github.incrementalrebalance.testkit.KafkaBroker#servesStreamsGroups")
class StreamsProtocolDrainIntegrationTests {

	private static final int PARTITIONS = 4;

	private static final long ACCEPTABLE_LAG = 1_000;

	private static final int KEYS_PER_TASK = (int) (25 * ACCEPTABLE_LAG);

	private static final long RESTORE_RATE = 12_500;

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.forStreamsGroups();

	@TempDir
	Path stateRoot;

	@Test
	void aDrainHandsOverOnceEveryInstanceThatStaysHoldsAReadyCopyAndNothingRestoresBeyondTheAcceptableLag() {
		Closed closed = kafkaClose("streams-close");
		CountingApplication run = new CountingApplication(broker, "streams-drain", PARTITIONS);
		standbyReplicas(run.applicationId(), 2);
		try (TrackingProducer producer = run.producer(); StreamsLauncher launcher = launcher(run)) {
			StreamsInstance a = start(launcher, "a", true);
			StreamsInstance b = start(launcher, "b", true);
			StreamsInstance c = start(launcher, "c", true);
			run.loadAndSettle(producer, KEYS_PER_TASK, a, b, c);
			Set<TaskId> ofB = b.activeTasks();
			assertThat(ofB).isNotEmpty();
			Instant askedAt = Instant.now();

			assertThat(b.runtime().leave(Optional.empty(), "test")).isTrue();

			b.awaitDrainedWarm(Duration.ofMinutes(2));
			assertThat(b.runtime().drainOutcome()).hasValueSatisfying((outcome) -> assertThat(outcome.reason())
				.isEqualTo(DrainOutcome.Reason.STANDBYS_READY));
			await("a and c run every task").atMost(Duration.ofMinutes(1))
				.until(() -> StreamsInstance.allRunning(a, c) && StreamsInstance.activeTasksOf(a, c).size() == PARTITIONS
						&& run.gapMeter().allProcessedSince(ofB, Instant.now().minusMillis(300)));
			for (TaskId task : ofB) {
				assertThat(run.gapMeter().processedBy(task, "b", askedAt))
					.as("b ran %s until it handed over", task).isPositive();
			}
			RestoredRecords.assertRestoredAtPromotionAtMost(ACCEPTABLE_LAG, ofB, a.restoredRecords(), c.restoredRecords());
			GapMeter.Gap stall = run.gapMeter().longestGapOf(ofB, askedAt, Instant.now());
			run.verifyCounts(producer);
			System.out.printf("Streams protocol, longest stall of b's tasks: %d ms drained (every instance that stays "
					+ "holds a ready copy), %d ms Kafka's close without standbys (%d restored); restores throttled to %d "
					+ "records/s%n", stall.length().toMillis(), closed.stall().toMillis(), closed.restored(),
					RESTORE_RATE);
			assertThat(stall.length()).isLessThan(closed.stall());
		}
	}

	@Test
	void withOneStandbyADrainCannotBeWarmWhereverTheBrokerMovesATaskAndItsTimeoutSaysHowManyMovedCold() {
		CountingApplication run = new CountingApplication(broker, "streams-one-standby", PARTITIONS);
		standbyReplicas(run.applicationId(), 1);
		try (TrackingProducer producer = run.producer(); StreamsLauncher launcher = launcher(run);
				LogCapture log = LogCapture.of(StandbyCopies.class)) {
			StreamsInstance a = start(launcher, "a", true);
			StreamsInstance b = start(launcher, "b", true);
			StreamsInstance c = start(launcher, "c", true);
			run.loadAndSettle(producer, (int) ACCEPTABLE_LAG, a, b, c);
			int statefulOfB = b.activeTasks().size();

			assertThat(b.runtime().leave(Optional.of(Duration.ofSeconds(5)), "test")).isTrue();

			await("b forced out at its timeout").atMost(Duration.ofMinutes(1))
				.until(() -> b.runtime().state() == MemberState.CLOSED);
			assertThat(b.runtime().drainOutcome()).hasValueSatisfying((outcome) -> {
				assertThat(outcome.reason()).isEqualTo(DrainOutcome.Reason.DEADLINE_PASSED);
				assertThat(outcome.tasksMovedCold()).as("one copy of each task, on one of the two that stay")
					.isEqualTo(statefulOfB);
			});
			assertThat(log.messages(Level.WARN)).anySatisfy((warning) -> assertThat(warning)
				.contains("holds no copy of task").contains("streams.num.standby.replicas"));
			run.verifyCounts(producer);
		}
	}

	@Test
	void anInstanceAloneHasNowhereWarmToGoAndLeavesAtItsTimeoutSayingSo() {
		CountingApplication run = new CountingApplication(broker, "streams-alone", PARTITIONS);
		standbyReplicas(run.applicationId(), 1);
		try (TrackingProducer producer = run.producer(); StreamsLauncher launcher = launcher(run)) {
			StreamsInstance a = start(launcher, "a", true);
			run.loadAndSettle(producer, 10, a);

			assertThat(a.runtime().leave(Optional.of(Duration.ofSeconds(3)), "test")).isTrue();

			await("a out at its timeout").atMost(Duration.ofMinutes(1))
				.until(() -> a.runtime().state() == MemberState.CLOSED);
			assertThat(a.runtime().drainOutcome()).hasValueSatisfying((outcome) -> {
				assertThat(outcome.reason()).isEqualTo(DrainOutcome.Reason.DEADLINE_PASSED);
				assertThat(outcome.tasksMovedCold()).isEqualTo(PARTITIONS);
			});
		}
	}

	/**
	 * Kafka Streams' own close of b with a real leave, without standbys.
	 * @return the longest stall of b's tasks, and what a and c restored into them at promotion
	 */
	private Closed kafkaClose(String applicationId) {
		CountingApplication run = new CountingApplication(broker, applicationId, PARTITIONS);
		standbyReplicas(run.applicationId(), 0);
		try (TrackingProducer producer = run.producer(); StreamsLauncher launcher = launcher(run)) {
			StreamsInstance a = start(launcher, "a", false);
			StreamsInstance b = start(launcher, "b", false);
			StreamsInstance c = start(launcher, "c", false);
			run.loadAndSettle(producer, KEYS_PER_TASK, a, b, c);
			Set<TaskId> ofB = b.activeTasks();
			Instant closedAt = Instant.now();

			// with a real leave: without one a member stays in a streams group until its session ends (Kafka 4.4)
			b.close(new KafkaStreams.CloseOptions().leaveGroup(true).timeout(Duration.ofSeconds(30)));

			await("a and c run every task").atMost(Duration.ofMinutes(2))
				.until(() -> StreamsInstance.allRunning(a, c) && StreamsInstance.activeTasksOf(a, c).size() == PARTITIONS
						&& run.gapMeter().allProcessedSince(ofB, Instant.now().minusMillis(300)));
			Duration stall = run.gapMeter().longestGap(ofB, closedAt, Instant.now());
			long restored = RestoredRecords.restoredInto(ofB, a.restoredRecords(), c.restoredRecords());
			run.verifyCounts(producer);
			return new Closed(stall, restored);
		}
	}

	private record Closed(Duration stall, long restored) {
	}

	private static void standbyReplicas(String groupId, int replicas) {
		broker.configureGroup(groupId, Map.of("streams.num.standby.replicas", String.valueOf(replicas)));
	}

	private static StreamsInstance start(StreamsLauncher launcher, String name, boolean member) {
		StreamsLauncher.Spec spec = launcher.instance(name).restoreThrottle(RestoreThrottle.of(RESTORE_RATE));
		return (member ? spec.memberRuntime() : spec).start();
	}

	private StreamsLauncher launcher(CountingApplication application) {
		return application.launcher(this.stateRoot.resolve(application.applicationId()))
			.property(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams")
			.property(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2)
			.property(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, ACCEPTABLE_LAG);
	}

}
