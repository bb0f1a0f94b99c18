package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;

import io.github.incrementalrebalance.testkit.AssignorCalls;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.CountingTaskAssignor;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A rebalance requested from a thread that is not a stream thread runs inside a main consumer's {@code poll()} and
 * causes exactly one rebalance, however many stream threads the instance has.
 */
@Tag(TestTags.BROKER)
@Tag(TestTags.CLIENT_LINE)
class RebalanceTriggerIntegrationTests {

	private static final int PARTITIONS = 4;

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@ParameterizedTest(name = "{0} stream thread(s) per instance")
	@ValueSource(ints = { 1, 2 })
	void requestFromAnotherThreadCausesExactlyOneRebalance(int threads) {
		String applicationId = "trigger-" + threads;
		AssignorCalls calls = new AssignorCalls();
		try (StreamsLauncher launcher = new CountingApplication(broker, applicationId, PARTITIONS)
			.launcher(this.stateRoot.resolve(applicationId))
			.property(StreamsConfig.TASK_ASSIGNOR_CLASS_CONFIG, CountingTaskAssignor.class.getName())
			.property(AssignorCalls.CONFIG, calls)
			.property(StreamsConfig.NUM_STREAM_THREADS_CONFIG, threads)) {
			StreamsInstance a = launcher.instance("a").clientSupplier(MemberClientSupplier::new).start();
			StreamsInstance b = launcher.instance("b").clientSupplier(MemberClientSupplier::new).start();
			await().atMost(Duration.ofMinutes(1)).until(() -> StreamsInstance.allRunning(a, b));
			int before = calls.awaitQuiet(Duration.ofSeconds(2));
			RebalanceTrigger trigger = b.clientSupplier(MemberClientSupplier.class).rebalanceTrigger();

			trigger.request("test asks for a rebalance");

			await("the requested rebalance").atMost(Duration.ofSeconds(30)).until(() -> calls.count() > before);
			assertThat(calls.awaitQuiet(Duration.ofSeconds(3))).as("assignments caused by one request")
				.isEqualTo(before + 1);
			assertThat(trigger.enforcedCount()).isEqualTo(1);
			assertThat(trigger.isPending()).isFalse();
			await().atMost(Duration.ofSeconds(30)).until(() -> StreamsInstance.allRunning(a, b));
		}
	}

	/**
	 * A rebalance that moves nothing is counted where it is paid for: by the member that asked, under its cause, and
	 * by the leader, as an assignment that changed nothing.
	 */
	@Test
	void roundThatMovesNothingIsCountedByCauseAndAsAnUnchangedAssignment() {
		String applicationId = "trigger-unchanged";
		try (StreamsLauncher launcher = new CountingApplication(broker, applicationId, PARTITIONS)
			.launcher(this.stateRoot.resolve(applicationId))) {
			StreamsInstance a = launcher.instance("a").memberRuntime().start();
			StreamsInstance b = launcher.instance("b").memberRuntime().start();
			await().atMost(Duration.ofMinutes(1)).until(() -> StreamsInstance.allRunning(a, b)
					&& StreamsInstance.planSettled(a, b));
			RebalanceTrigger trigger = b.runtime().rebalanceTrigger().orElseThrow();
			long unchangedBefore = unchanged(a, b);
			long assignmentsBefore = assignments(a, b);
			Set<TaskId> activeBefore = StreamsInstance.activeTasksOf(a);
			assertThat(assignmentsBefore).as("the rounds that placed the tasks changed them").isGreaterThan(unchangedBefore);

			trigger.request("test asks for a rebalance");

			await("the round asked for").atMost(Duration.ofSeconds(30))
				.until(() -> assignments(a, b) > assignmentsBefore && StreamsInstance.allRunning(a, b));
			assertThat(trigger.rounds(RebalanceCause.APPLICATION)).isEqualTo(1);
			assertThat(unchanged(a, b)).as("the leader's count of rounds that moved nothing")
				.isEqualTo(unchangedBefore + (assignments(a, b) - assignmentsBefore));
			assertThat(StreamsInstance.activeTasksOf(a)).isEqualTo(activeBefore);
		}
	}

	private static long unchanged(StreamsInstance... instances) {
		return Arrays.stream(instances).mapToLong((member) -> member.runtime().assignorStatus().unchangedAssignments())
			.sum();
	}

	private static long assignments(StreamsInstance... instances) {
		return Arrays.stream(instances).mapToLong((member) -> member.runtime().assignorStatus().assignments()).sum();
	}

}
