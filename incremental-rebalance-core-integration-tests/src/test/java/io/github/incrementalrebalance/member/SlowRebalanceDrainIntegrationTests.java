package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.RestoredRecords;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A slow rebalance, as production has them: three instances of an exactly-once application, and while c's stream
 * thread is stuck 15 s in a slow call, b is asked to leave. The rebalance that answers the leave cannot complete until
 * c rejoins, which the group's rebalance timeout ({@code max.poll.interval.ms}, 5 minutes) allows; the leave waits for
 * it as long, and b still hands its tasks over to warm learners. (A fixed 10 s wait for the answer used to end this
 * leave left-without-learners, moving b's tasks cold.)
 * <p>
 * Kafka Streams commits nothing while a rebalance is in progress, so under exactly-once a rebalance longer than
 * {@code transaction.timeout.ms} (10 s by Kafka Streams' default) has the broker abort every member's open
 * transaction: all members are fenced and every task restores from scratch, whatever the assignor does. An
 * exactly-once application whose rebalances can take longer sets a transaction timeout above them, as this one does.
 */
@Tag(TestTags.BROKER)
@Tag(TestTags.CLIENT_LINE)
class SlowRebalanceDrainIntegrationTests {

	private static final int PARTITIONS = 4;

	/** A twentieth of the state per task: a move that restores it cold fails the bound. */
	private static final long ACCEPTABLE_LAG = 500;

	private static final int KEYS_PER_TASK = 10_000;

	private static final Duration SLOW_CALL = Duration.ofSeconds(15);

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@Test
	void leaveAnsweredOnlyAfterAFifteenSecondSlowCallStillHandsOverToWarmLearners() {
		CountingApplication application = new CountingApplication(broker, "slow-rebalance", PARTITIONS);
		try (TrackingProducer producer = application.producer();
				StreamsLauncher launcher = application.launcher(this.stateRoot)
					.property(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2)
					.property(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, ACCEPTABLE_LAG)
					.property(StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG),
							(int) SLOW_CALL.multipliedBy(4).toMillis())
					.property(LearnerConfig.LEARNER_PROBE_INTERVAL_MS_CONFIG, Duration.ofMinutes(5).toMillis())) {
			StreamsInstance a = launcher.instance("a").memberRuntime().start();
			StreamsInstance b = launcher.instance("b").memberRuntime().start();
			StreamsInstance c = launcher.instance("c").memberRuntime().start();
			application.loadAndSettle(producer, KEYS_PER_TASK, a, b, c);
			Set<TaskId> ofB = b.activeTasks();

			application.slowCalls().armNext("c", SLOW_CALL);
			await("c's stream thread stuck in its slow call").atMost(Duration.ofSeconds(30))
				.until(() -> !application.slowCalls().isArmed("c"));
			Instant askedAt = Instant.now();
			b.runtime().leave(Optional.empty(), "test");

			await("b drained").atMost(Duration.ofMinutes(2)).until(() -> b.runtime().state() == MemberState.CLOSED);
			Duration took = Duration.between(askedAt, Instant.now());
			System.out.printf("Leave during a %d s slow call: %s after %d ms%n", SLOW_CALL.toSeconds(),
					b.runtime().drainOutcome().map(DrainOutcome::describe).orElse("no outcome"), took.toMillis());
			assertThat(took).as("the answer waited for c").isGreaterThan(Duration.ofSeconds(10));
			assertThat(b.runtime().drainOutcome())
				.contains(DrainOutcome.of(DrainOutcome.Reason.LEARNERS_READY, 0));
			await("b's tasks running on a and c").atMost(Duration.ofMinutes(1))
				.until(() -> StreamsInstance.allRunning(a, c) && StreamsInstance.activeTasksOf(a, c).containsAll(ofB));
			RestoredRecords.assertRestoredAtPromotionAtMost(ACCEPTABLE_LAG, ofB, a.restoredRecords(), c.restoredRecords());
			application.verifyCounts(producer);
		}
	}

}
