package io.github.incrementalrebalance.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.github.incrementalrebalance.member.DrainOutcome;
import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.testkit.ExactCountVerifier;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.context.ConfigurableApplicationContext;

import static io.github.incrementalrebalance.autoconfigure.CountingBootApplication.activeTasks;
import static io.github.incrementalrebalance.autoconfigure.CountingBootApplication.running;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Spring application under Kafka's streams group protocol: an instance asked to leave drains, and when its factory
 * bean stops it, it leaves the streams group, so the broker moves its tasks within a heartbeat. spring-kafka's close
 * stays in the group unless told, and the broker then holds the tasks for the group's session, 30 s here.
 */
@Tag(TestTags.BROKER)
@EnabledIf("io.github.incrementalrebalance.testkit.KafkaBroker#servesStreamsGroups")
class StreamsProtocolLeaveIntegrationTests {

	private static final String APPLICATION = "streams-leave-app";

	private static final int PARTITIONS = 4;

	/** The group's session: what a member that closed without leaving holds its tasks for. */
	private static final Duration SESSION = Duration.ofSeconds(30);

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.forStreamsGroups();

	@TempDir
	Path stateRoot;

	@Test
	void aDrainedInstanceLeavesTheStreamsGroupAsItStopsAndItsTasksMoveWithinAHeartbeat() {
		broker.createTopics(PARTITIONS, APPLICATION + "-input", APPLICATION + "-output");
		broker.configureGroup(APPLICATION, Map.of("streams.num.standby.replicas", "1", "streams.session.timeout.ms",
				String.valueOf(SESSION.toMillis()), "streams.heartbeat.interval.ms", "1000"));
		try (TrackingProducer producer = new TrackingProducer(broker.bootstrapServers(), APPLICATION + "-input");
				ConfigurableApplicationContext a = start("a");
				ConfigurableApplicationContext b = start("b")) {
			await("both run a share of the tasks").atMost(Duration.ofMinutes(1))
				.until(() -> running(a) && running(b) && !activeTasks(b).isEmpty()
						&& activeTasks(a).size() + activeTasks(b).size() == PARTITIONS);
			producer.load(PARTITIONS, 500, 1);
			ExactCountVerifier.assertExactCounts(broker.bootstrapServers(), APPLICATION + "-output",
					producer.acknowledgedCounts(), Duration.ofMinutes(2));
			Set<TaskId> ofB = activeTasks(b);
			MemberRuntime leaving = b.getBean(MemberRuntimes.class).all().get(0);

			assertThat(leaving.leave(Optional.empty(), "test")).isTrue();
			await("b drained and stopped").atMost(Duration.ofMinutes(1))
				.until(() -> leaving.state() == MemberState.CLOSED);
			Instant stopped = Instant.now();
			assertThat(leaving.drainOutcome()).hasValueSatisfying((outcome) -> {
				assertThat(outcome.reason()).isEqualTo(DrainOutcome.Reason.STANDBYS_READY);
				assertThat(outcome.tasksMovedCold()).isZero();
			});

			await("a runs b's tasks").atMost(SESSION)
				.until(() -> running(a) && activeTasks(a).containsAll(ofB));
			Duration moved = Duration.between(stopped, Instant.now());
			System.out.printf("Streams protocol, Spring: b's tasks ran on a %d ms after b stopped (session %d s)%n",
					moved.toMillis(), SESSION.toSeconds());
			assertThat(moved).as("a heartbeat and the rebalance after b's leave, far within the session")
				.isLessThan(Duration.ofSeconds(10));
			producer.load(PARTITIONS, 100, 1);
			ExactCountVerifier.assertExactCounts(broker.bootstrapServers(), APPLICATION + "-output",
					producer.acknowledgedCounts(), Duration.ofMinutes(2));
		}
	}

	private ConfigurableApplicationContext start(String name) {
		return CountingBootApplication.start(broker, APPLICATION, name, this.stateRoot, null, false,
				"spring.kafka.streams.properties.group.protocol=streams",
				"incremental-rebalance.drain.on-drained=stop-streams", "incremental-rebalance.drain.timeout=1m");
	}

}
