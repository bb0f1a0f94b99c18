package io.github.incrementalrebalance.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

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
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The command line under Kafka's streams protocol, where no plan names the members: it finds them in the group as the
 * broker describes it, asks one to leave, and follows the leave to its end. Two instances, a standby of every task:
 * the command line's part, not the drain's (the core's streams-protocol tests hold that with three).
 */
@Tag(TestTags.BROKER)
@Tag(TestTags.CLIENT_LINE)
@EnabledIf("io.github.incrementalrebalance.testkit.KafkaBroker#servesStreamsGroups")
class StreamsProtocolLeaveIntegrationTests {

	private static final int PARTITIONS = 4;

	private static final long ACCEPTABLE_LAG = 1_000;

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.forStreamsGroups();

	@TempDir
	Path stateRoot;

	@Test
	void leaveFindsTheMemberInTheStreamsGroupAndFollowsItsDrainToTheEnd() {
		CountingApplication run = new CountingApplication(broker, "streams-cli", PARTITIONS);
		broker.configureGroup(run.applicationId(), Map.of("streams.num.standby.replicas", "1"));
		try (TrackingProducer producer = run.producer();
				StreamsLauncher launcher = run.launcher(this.stateRoot)
					.property(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams")
					.property(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2)
					.property(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, ACCEPTABLE_LAG)) {
			StreamsInstance a = launcher.instance("a").memberRuntime().start();
			StreamsInstance b = launcher.instance("b").memberRuntime().start();
			run.loadAndSettle(producer, 5_000, a, b);
			Set<TaskId> ofB = b.activeTasks();

			assertThat(CliRun.against(broker, run.applicationId(), 1, "leave", "--instance-id", "z", "--wait", "10s"))
				.contains("unknown instance id 'z'").contains("in the group");
			String left = CliRun.against(broker, run.applicationId(), 0, "leave", "--instance-id", "b", "--wait", "2m");

			assertThat(left).contains("b: drained (standbys-ready)");
			assertThat(b.runtime().state()).isEqualTo(MemberState.CLOSED);
			assertThat(b.runtime().drainOutcome()).contains(DrainOutcome.of(DrainOutcome.Reason.STANDBYS_READY, 0));
			RestoredRecords.assertRestoredAtPromotionAtMost(ACCEPTABLE_LAG, ofB, a.restoredRecords());
			run.verifyCounts(producer);
		}
	}
}
