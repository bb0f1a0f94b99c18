package io.github.incrementalrebalance.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.identity.MemberIdentity;
import io.github.incrementalrebalance.member.DrainOutcome;
import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.KafkaBroker;
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
 * A host swap with the command line: two new instances join, then one command marks both old ones leaving. Both
 * drain through learners on the new ones and close; the counts stay exact.
 */
@Tag(TestTags.BROKER)
class HostSwapIntegrationTests {

	private static final int PARTITIONS = 4;

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	/** A Deployment's pod name of Kubernetes' 63 characters: longer than a client tag takes. */
	private static final String POD_NAME = "orders-enrichment-streams-processor-deployment-6f7b9c8d4f-x2k4q";

	@Test
	void commandLineDrainsBothOldInstancesAtOnce() {
		assertThat(POD_NAME).hasSize(63);
		String old2Id = MemberIdentity.instanceIdOf(POD_NAME);
		String applicationId = "host-swap";
		CountingApplication application = new CountingApplication(broker, applicationId, PARTITIONS);
		try (TrackingProducer producer = application.producer();
				StreamsLauncher launcher = application.launcher(this.stateRoot)
					.property(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2)
					.property(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, 1_000L)
					.property(StreamsConfig.STATE_CLEANUP_DELAY_MS_CONFIG, 1_000L)
					.property(LearnerConfig.LEARNER_PROBE_INTERVAL_MS_CONFIG, Duration.ofMinutes(5).toMillis())) {
			StreamsInstance old1 = launcher.instance("old-1").memberRuntime().start();
			StreamsInstance old2 = launcher.instance(POD_NAME).memberRuntime().start();
			await().atMost(Duration.ofMinutes(1)).until(() -> StreamsInstance.allRunning(old1, old2)
					&& StreamsInstance.activeTasksOf(old1, old2).size() == PARTITIONS);
			producer.load(PARTITIONS, 20_000, 1);
			producer.startMarkers(PARTITIONS, TrackingProducer.MARKER_INTERVAL);
			StreamsInstance new1 = launcher.instance("new-1").memberRuntime().start();
			StreamsInstance new2 = launcher.instance("new-2").memberRuntime().start();
			await("the new instances took a share").atMost(Duration.ofMinutes(2))
				.until(() -> StreamsInstance.allRunning(old1, old2, new1, new2) && !new1.activeTasks().isEmpty()
						&& !new2.activeTasks().isEmpty());

			String list = CliRun.expecting(0, "list", "--bootstrap-servers", broker.bootstrapServers(), "--application-id",
					applicationId);
			assertThat(old2.runtime().identity().instanceId()).as("a pod name too long for a client tag is shortened")
				.isEqualTo(old2Id)
				.hasSize(30)
				.startsWith(POD_NAME.substring(0, 21));
			assertThat(list).contains("old-1").contains(old2Id).contains("new-1").contains("new-2");
			CliRun.expecting(1, "leave", "--bootstrap-servers", broker.bootstrapServers(), "--application-id", applicationId,
					"--instance-id", "gone-9");
			String everyone = CliRun.expecting(1, "leave", "--bootstrap-servers", broker.bootstrapServers(), "--application-id",
					applicationId, "--instance-id", "old-1," + POD_NAME + ",new-1,new-2");
			assertThat(everyone).contains("no member of host-swap would stay in the group").contains("--force");
			assertThat(old1.runtime().state()).as("nothing written").isEqualTo(MemberState.STABLE);
			Set<TaskId> ofOld = StreamsInstance.activeTasksOf(old1, old2);
			String leave = CliRun.expecting(0, "leave", "--bootstrap-servers", broker.bootstrapServers(), "--application-id",
					applicationId, "--instance-id", "old-1," + POD_NAME, "--timeout", "2m", "--wait", "2m");
			assertThat(leave).as("the pod's full name stands for its id").contains("old-1: leaving")
				.contains(old2Id + ": leaving");
			assertThat(leave).as("--wait: until each has left, and how").contains("old-1: drained (learners-ready)")
				.contains(old2Id + ": drained (learners-ready)");

			await("both old instances drained and closed").atMost(Duration.ofMinutes(2))
				.until(() -> old1.runtime().state() == MemberState.CLOSED
						&& old2.runtime().state() == MemberState.CLOSED);
			await("the new instances run every task").atMost(Duration.ofMinutes(1))
				.until(() -> StreamsInstance.allRunning(new1, new2)
						&& StreamsInstance.activeTasksOf(new1, new2).size() == PARTITIONS);
			assertThat(List.of(old1, old2)).allSatisfy((old) -> assertThat(old.runtime().drainOutcome())
				.contains(DrainOutcome.of(DrainOutcome.Reason.LEARNERS_READY, 0)));
			assertThat(ofOld).isNotEmpty();
			RestoredRecords.assertRestoredAtPromotionAtMost(1_000, ofOld, new1.restoredRecords(), new2.restoredRecords());
			await("each old instance recorded how its leave ended").atMost(Duration.ofSeconds(30))
				.until(() -> new1.runtime().controlView().leaveRecords().values().stream()
					.filter((record) -> record.ended().isPresent())
					.count() == 2);
			String after = CliRun.expecting(0, "list", "--bootstrap-servers", broker.bootstrapServers(), "--application-id",
					applicationId);
			assertThat(after.substring(after.indexOf("left:"))).as("the operator sees how each leave ended")
				.containsPattern("old-1 .* drained \\(learners-ready\\)")
				.containsPattern(old2Id + " .* drained \\(learners-ready\\)");
			application.verifyCounts(producer);
		}
	}
}
