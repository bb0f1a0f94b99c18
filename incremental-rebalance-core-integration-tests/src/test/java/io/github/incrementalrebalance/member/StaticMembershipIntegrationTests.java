package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import io.github.incrementalrebalance.testkit.AssignorCalls;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.CountingTaskAssignor;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Static members ({@code group.instance.id}) stay in the group when they close for a restart and leave it when they
 * are drained.
 */
@Tag(TestTags.BROKER)
@Tag(TestTags.CLIENT_LINE)
class StaticMembershipIntegrationTests {

	private static final int PARTITIONS = 6;

	// a restart has to come back before the broker expires the static member; 20 s leaves room on a loaded machine
	private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(20);

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@Test
	void restartingStaticMemberGetsItsTasksBackWithoutRebalancingTheOthers() {
		AssignorCalls calls = new AssignorCalls();
		try (StreamsLauncher launcher = launcher("static-restart", calls)) {
			StreamsInstance a = startStatic(launcher, "a");
			StreamsInstance b = startStatic(launcher, "b");
			StreamsInstance c = startStatic(launcher, "c");
			awaitSharing(a, b, c);
			int assignments = calls.awaitQuiet(Duration.ofSeconds(2));
			Set<TaskId> tasksOfB = b.activeTasks();
			Instant restartedAt = Instant.now();

			b.close();
			StreamsInstance restarted = startStatic(launcher, "b").awaitRunning();

			await("restarted member owning its tasks again").atMost(Duration.ofSeconds(30))
				.until(() -> restarted.activeTasks().equals(tasksOfB));
			assertThat(calls.awaitQuiet(Duration.ofSeconds(2))).as("assignments after the restart")
				.isEqualTo(assignments);
			assertThat(a.rebalancesSince(restartedAt)).isZero();
			assertThat(c.rebalancesSince(restartedAt)).isZero();
		}
	}

	@Test
	void drainedStaticMemberIsRemovedFromTheGroupAtOnce() {
		AssignorCalls calls = new AssignorCalls();
		try (StreamsLauncher launcher = launcher("static-drained", calls)) {
			StreamsInstance a = startStatic(launcher, "a");
			StreamsInstance b = startStatic(launcher, "b");
			StreamsInstance c = startStatic(launcher, "c");
			awaitSharing(a, b, c);
			assertThat(instanceIds("static-drained")).contains("b-1");

			b.clientSupplier(MemberClientSupplier.class).leaveOnClose().markDrained();
			Instant closedAt = Instant.now();
			b.close();

			await("b removed from the group").atMost(SESSION_TIMEOUT)
				.until(() -> !instanceIds("static-drained").contains("b-1"));
			Duration removedAfter = Duration.between(closedAt, Instant.now());
			await("a and c running all tasks").atMost(Duration.ofSeconds(30))
				.until(() -> StreamsInstance.allRunning(a, c)
						&& StreamsInstance.activeTasksOf(a, c).size() == PARTITIONS);
			System.out.printf("Drained static member removed %d ms after close (session timeout %d ms)%n",
					removedAfter.toMillis(), SESSION_TIMEOUT.toMillis());
			assertThat(removedAfter).isLessThan(SESSION_TIMEOUT.dividedBy(4));
		}
	}

	private StreamsLauncher launcher(String applicationId, AssignorCalls calls) {
		return new CountingApplication(broker, applicationId, PARTITIONS).launcher(this.stateRoot.resolve(applicationId))
			.property(StreamsConfig.TASK_ASSIGNOR_CLASS_CONFIG, CountingTaskAssignor.class.getName())
			.property(AssignorCalls.CONFIG, calls)
			.property(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG),
					(int) SESSION_TIMEOUT.toMillis());
	}

	private static StreamsInstance startStatic(StreamsLauncher launcher, String name) {
		// Kafka Streams appends "-<thread index>" to the instance id of each thread's consumer
		return launcher.instance(name)
			.property(StreamsConfig.mainConsumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), name)
			.clientSupplier(MemberClientSupplier::new)
			.start();
	}

	private static void awaitSharing(StreamsInstance... instances) {
		await("instances running and sharing all tasks").atMost(Duration.ofMinutes(1))
			.until(() -> StreamsInstance.allRunning(instances)
					&& StreamsInstance.activeTasksOf(instances).size() == PARTITIONS);
	}

	private static Set<String> instanceIds(String groupId) {
		return broker.groupMembers(groupId).stream()
			.map(MemberDescription::groupInstanceId)
			.flatMap(Optional::stream)
			.collect(Collectors.toSet());
	}

}
