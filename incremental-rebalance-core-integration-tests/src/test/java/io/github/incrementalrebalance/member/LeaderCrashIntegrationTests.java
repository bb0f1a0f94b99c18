package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.control.PlanEpoch;
import io.github.incrementalrebalance.planner.MemberPlan;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.ExactCountVerifier;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.RestoreThrottle;
import io.github.incrementalrebalance.testkit.RestoredRecords;
import io.github.incrementalrebalance.testkit.StandaloneMember;
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
 * The leader dies mid-drain: it runs in a JVM of its own and is killed with {@code kill -9} while b's learners warm up
 * (restores throttled on the leader and on c). The next leader, with nothing but Kafka's view and the control topic,
 * finishes the drain; the counts stay exact under exactly-once (no task ran twice), once the dead leader's open
 * transactions time out.
 */
@Tag(TestTags.BROKER)
class LeaderCrashIntegrationTests {

	private static final int PARTITIONS = 4;

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@Test
	void nextLeaderFinishesTheDrainOfAKilledLeader() throws Exception {
		CountingApplication application = new CountingApplication(broker, "leader-crash", PARTITIONS);
		Map<String, String> settings = Map.of(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2,
				StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, "1000", StreamsConfig.STATE_CLEANUP_DELAY_MS_CONFIG,
				"1000", LearnerConfig.LEARNER_PROBE_INTERVAL_MS_CONFIG, "300000");
		RestoreThrottle throttle = RestoreThrottle.of(500);
		Map<String, String> leaderSettings = new HashMap<>(settings);
		leaderSettings.put(StandaloneMember.RESTORE_RATE, "500");
		try (StandaloneMember leader = StandaloneMember.launch(broker.bootstrapServers(), application.applicationId(),
				"leader", this.stateRoot.resolve("leader"), application.input(), application.output(), leaderSettings);
				TrackingProducer producer = application.producer();
				StreamsLauncher launcher = application.launcher(this.stateRoot.resolve("in-process"))) {
			settings.forEach(launcher::property);
			assertThat(leader.awaitRunning(Duration.ofMinutes(2))).as("the leader's JVM runs").isTrue();
			StreamsInstance b = launcher.instance("b").memberRuntime().start();
			StreamsInstance c = launcher.instance("c")
				.restoreThrottle(throttle)
				.memberRuntime()
				.start();
			await("b and c have work").atMost(Duration.ofMinutes(1))
				.until(() -> StreamsInstance.allRunning(b, c) && !b.activeTasks().isEmpty()
						&& !c.activeTasks().isEmpty());
			assertThat(b.runtime().controlView().planEpoch().map(PlanEpoch::leader)).contains("leader");
			producer.load(PARTITIONS, 20_000, 1);
			// counted before the leave: a leaver still working through a backlog writes its changelog faster than
			// its learner reads it, and that is restored at promotion
			ExactCountVerifier.assertExactCounts(broker.bootstrapServers(), application.output(),
					producer.acknowledgedCounts(), Duration.ofMinutes(2));
			producer.startMarkers(PARTITIONS, TrackingProducer.MARKER_INTERVAL);
			Set<TaskId> ofB = b.activeTasks();

			b.runtime().leave(Optional.empty(), "test");
			await("the leader planned b's learners").atMost(Duration.ofSeconds(30))
				.until(() -> b.plan().map(MemberPlan::leaving).orElse(false)
						&& b.runtime().controlView().plans().stream()
							.anyMatch((plan) -> !plan.plan().learning().isEmpty()));
			assertThat(b.runtime().state()).as("learners still warm up when the leader dies")
				.isEqualTo(MemberState.LEAVING);
			leader.kill();
			throttle.release();

			await("b drained under the next leader").atMost(Duration.ofMinutes(2))
				.until(() -> b.runtime().state() == MemberState.CLOSED);
			assertThat(b.runtime().controlView().planEpoch().map(PlanEpoch::leader)).isNotEqualTo(Optional.of("leader"));
			await("c runs every task").atMost(Duration.ofMinutes(2))
				.until(() -> c.activeTasks().size() == PARTITIONS && StreamsInstance.allRunning(c));
			assertThat(b.runtime().drainOutcome()).as("handed over to ready learners by the next leader")
				.contains(DrainOutcome.of(DrainOutcome.Reason.LEARNERS_READY, 0));
			RestoredRecords.assertRestoredAtPromotionAtMost(1_000, ofB, c.restoredRecords());
			application.verifyCounts(producer);
		}
	}

}
