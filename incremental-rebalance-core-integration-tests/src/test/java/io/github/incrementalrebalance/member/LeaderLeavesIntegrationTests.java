package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.control.PlanEpoch;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.RestoredRecords;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.KafkaBroker;
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
 * The group's leader is asked to leave: it plans its own drain while its learners warm up, hands over, and its
 * successor leads the rounds after it left through the ready learners. Exactly-once; counts exact.
 */
@Tag(TestTags.BROKER)
class LeaderLeavesIntegrationTests {

	private static final int PARTITIONS = 4;

	/** A twentieth of the state per task: a move that restores it cold fails the bound. */
	private static final long ACCEPTABLE_LAG = 500;

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@Test
	void leaderAskedToLeaveHandsOverThroughReadyLearnersAndItsSuccessorLeads() {
		CountingApplication application = new CountingApplication(broker, "leader-leaves", PARTITIONS);
		try (TrackingProducer producer = application.producer();
				StreamsLauncher launcher = application.launcher(this.stateRoot.resolve("leader-leaves"))
					.property(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2)
					.property(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, ACCEPTABLE_LAG)
					.property(StreamsConfig.STATE_CLEANUP_DELAY_MS_CONFIG, 1_000L)
					.property(LearnerConfig.LEARNER_PROBE_INTERVAL_MS_CONFIG, Duration.ofMinutes(5).toMillis())) {
			List<StreamsInstance> members = List.of(launcher.instance("a").memberRuntime().start(),
					launcher.instance("b").memberRuntime().start(), launcher.instance("c").memberRuntime().start());
			StreamsInstance[] all = members.toArray(StreamsInstance[]::new);
			application.loadAndSettle(producer, 10_000, all);
			await("a settled plan").atMost(Duration.ofMinutes(1)).until(() -> StreamsInstance.planSettled(all));
			String leaderId = members.get(0).runtime().controlView().planEpoch().map(PlanEpoch::leader).orElseThrow();
			StreamsInstance leader = members.stream().filter((member) -> member.name().equals(leaderId)).findFirst()
				.orElseThrow();
			List<StreamsInstance> others = members.stream().filter((member) -> member != leader).toList();
			await("the leader runs tasks").atMost(Duration.ofSeconds(30)).until(() -> !leader.activeTasks().isEmpty());
			Set<TaskId> ofLeader = leader.activeTasks();

			assertThat(leader.runtime().leave(Optional.empty(), "test")).isTrue();

			await("the leader drained and closed").atMost(Duration.ofMinutes(2))
				.until(() -> leader.runtime().state() == MemberState.CLOSED);
			assertThat(leader.runtime().drainOutcome()).hasValueSatisfying((outcome) -> {
				assertThat(outcome.reason()).isEqualTo(DrainOutcome.Reason.LEARNERS_READY);
				assertThat(outcome.tasksMovedCold()).isZero();
			});
			StreamsInstance first = others.get(0);
			StreamsInstance second = others.get(1);
			await("its successor leads and the others run every task").atMost(Duration.ofMinutes(1))
				.until(() -> StreamsInstance.allRunning(first, second)
						&& StreamsInstance.activeTasksOf(first, second).size() == PARTITIONS
						&& first.runtime().controlView().planEpoch().map(PlanEpoch::leader)
							.filter((id) -> !id.equals(leaderId)).isPresent());
			RestoredRecords.assertRestoredAtPromotionAtMost(ACCEPTABLE_LAG, ofLeader, first.restoredRecords(),
					second.restoredRecords());
			application.verifyCounts(producer);
		}
	}

}
