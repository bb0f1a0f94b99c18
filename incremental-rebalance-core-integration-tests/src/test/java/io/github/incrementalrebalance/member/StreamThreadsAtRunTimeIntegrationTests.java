package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
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
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Stream threads come and go while a drain runs: one instance adds a thread ({@code addStreamThread}), another
 * removes one ({@code removeStreamThread}) and has one fail and replaced ({@code REPLACE_THREAD}). Each of those
 * consumers joins or leaves the group by itself; the drain still hands every task over to a ready learner. Every
 * stack runs it: it is the lightest test of an instance's consumers joining its rounds together.
 */
@Tag(TestTags.BROKER)
@Tag(TestTags.CLIENT_LINE)
class StreamThreadsAtRunTimeIntegrationTests {

	private static final int PARTITIONS = 6;

	private static final long ACCEPTABLE_LAG = 500;

	private static final int KEYS_PER_TASK = 10_000;

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@Test
	void threadsAddedRemovedAndReplacedDuringADrainKeepItsHandOverWarm() {
		CountingApplication run = new CountingApplication(broker, "threads-at-run-time", PARTITIONS);
		RestoreThrottle learnersOfA = RestoreThrottle.of(2_000);
		RestoreThrottle learnersOfC = RestoreThrottle.of(2_000);
		try (TrackingProducer producer = run.producer(); StreamsLauncher launcher = launcher(run)) {
			StreamsInstance a = member(launcher, "a", learnersOfA).start();
			StreamsInstance b = member(launcher, "b", RestoreThrottle.unlimited()).start();
			StreamsInstance c = member(launcher, "c", learnersOfC)
				.onCreated((streams, topology) -> streams
					.setUncaughtExceptionHandler((failure) -> StreamThreadExceptionResponse.REPLACE_THREAD))
				.start();
			run.loadAndSettle(producer, KEYS_PER_TASK, a, b, c);
			Set<TaskId> ofB = b.activeTasks();
			assertThat(ofB).isNotEmpty();

			assertThat(b.runtime().leave(Optional.empty(), "test")).isTrue();
			await("b's learners placed").atMost(Duration.ofMinutes(1))
				.until(() -> b.plan().map((plan) -> plan.beingLearned().containsAll(ofB)).orElse(false));

			assertThat(a.kafkaStreams().addStreamThread()).as("a thread added to a").isPresent();
			assertThat(c.kafkaStreams().removeStreamThread()).as("a thread removed from c").isPresent();
			run.slowCalls().failNext("c");
			await("c's failed thread replaced").atMost(Duration.ofMinutes(1))
				.until(() -> !run.slowCalls().isFailing("c") && c.kafkaStreams().metadataForLocalThreads().size() == 1
						&& c.state() == KafkaStreams.State.RUNNING);
			learnersOfA.release();
			learnersOfC.release();

			await("b drained and closed").atMost(Duration.ofMinutes(2))
				.until(() -> b.runtime().state() == MemberState.CLOSED);
			assertThat(b.runtime().drainOutcome()).hasValueSatisfying(
					(outcome) -> assertThat(outcome.kind()).isEqualTo(DrainOutcome.Kind.DRAINED));
			await("a and c run every task").atMost(Duration.ofMinutes(1))
				.until(() -> StreamsInstance.allRunning(a, c)
						&& StreamsInstance.activeTasksOf(a, c).size() == PARTITIONS);
			DrainScenarioGroup.assertRestoredAtPromotionAtMostTheLag(ofB, a, c);
			assertThat(a.kafkaStreams().metadataForLocalThreads()).as("a's threads").hasSize(3);
			run.verifyCounts(producer);
		}
	}

	private static StreamsLauncher.Spec member(StreamsLauncher launcher, String name, RestoreThrottle throttle) {
		return launcher.instance(name).threads(2).restoreThrottle(throttle).memberRuntime();
	}

	private StreamsLauncher launcher(CountingApplication application) {
		return application.launcher(this.stateRoot.resolve(application.applicationId()))
			.property(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2)
			.property(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, ACCEPTABLE_LAG)
			.property(LearnerConfig.LEARNER_PROBE_INTERVAL_MS_CONFIG, Duration.ofMinutes(5).toMillis());
	}

}
