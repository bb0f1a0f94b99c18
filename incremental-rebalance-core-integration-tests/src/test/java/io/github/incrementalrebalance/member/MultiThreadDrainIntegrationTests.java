package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import io.github.incrementalrebalance.testkit.GapMeter;
import io.github.incrementalrebalance.testkit.HandOverTimeline;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.MarkerQueries;
import io.github.incrementalrebalance.testkit.ProductionApplication;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static io.github.incrementalrebalance.testkit.ProductionApplication.STALL_BOUND;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A drain of an instance of the production-shaped application (four stream threads, two sub-topologies, six stores,
 * a GlobalKTable) at Kafka's default heartbeat (3 s) and session (45 s). Each thread's main consumer is a member of
 * the group, and a round completes only once all have joined it. One of three instances leaves; its tasks move to
 * warm learners, neither they nor the tasks that stay stall for a heartbeat, and interactive queries routed to each
 * key's active host keep being answered, never with a count lower than one given before.
 */
@Tag(TestTags.BROKER)
@Tag(TestTags.TIMING)
class MultiThreadDrainIntegrationTests {

	private static final int PARTITIONS = 6;

	private static final long RESTORE_RATE = 5_000;

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@Test
	void drainOfAFourThreadInstanceStallsNoTaskForAHeartbeatAndQueriesNeverGoBack() {
		ProductionApplication run = new ProductionApplication(broker, "drain-threads", PARTITIONS);
		try (TrackingProducer producer = run.producer(); StreamsLauncher launcher = run.launcher(this.stateRoot);
				MarkerQueries queries = new MarkerQueries(partitions(run.inputTasks()))) {
			StreamsInstance a = ProductionApplication.member(launcher, "a", RESTORE_RATE);
			StreamsInstance b = ProductionApplication.member(launcher, "b", RESTORE_RATE);
			StreamsInstance c = ProductionApplication.member(launcher, "c", RESTORE_RATE);
			queries.serve(a).serve(b).serve(c);
			run.loadAndSettle(producer, ProductionApplication.KEYS_PER_TASK, a, b, c);
			Set<TaskId> ofB = inputTasksOf(b);
			assertThat(ofB).as("b's input tasks").isNotEmpty();
			Set<TaskId> staying = new HashSet<>(run.inputTasks());
			staying.removeAll(ofB);
			queries.start();
			Instant askedAt = Instant.now();

			assertThat(b.runtime().leave(Optional.empty(), "test")).isTrue();

			b.awaitDrainedWarm(Duration.ofMinutes(2));
			await("a and c run every task").atMost(Duration.ofMinutes(1))
				.until(() -> StreamsInstance.allRunning(a, c)
						&& StreamsInstance.activeTasksOf(a, c).containsAll(run.inputTasks())
						&& run.gapMeter().allProcessedSince(ofB, Instant.now().minusMillis(300)));
			Instant settled = Instant.now();
			GapMeter.Gap movedGap = run.gapMeter().longestGapOf(ofB, askedAt, settled);
			Duration moved = movedGap.length();
			Duration unmoved = run.gapMeter().longestGap(staying, askedAt, settled);
			Duration unanswered = queries.longestUnanswered(askedAt, settled);
			System.out.printf("Drain of a %d-thread instance of the production-shaped application at Kafka's default "
					+ "heartbeat: moved tasks stalled %d ms (%s from %s, %s to %s), unmoved ones %d ms, queries "
					+ "unanswered %d ms at most (bound %d ms)%n", ProductionApplication.THREADS, moved.toMillis(),
					movedGap.task(), movedGap.from(), movedGap.before(), movedGap.after(), unmoved.toMillis(),
					unanswered.toMillis(), STALL_BOUND.toMillis());
			HandOverTimeline.of(movedGap, List.of(a, b, c)).ifPresent(System.out::println);
			assertThat(ProductionApplication.restoredAtPromotion(List.of(a, c))).as("records restored at promotion")
				.allSatisfy((task, records) -> assertThat(records)
					.isLessThanOrEqualTo(ProductionApplication.ACCEPTABLE_LAG));
			for (TaskId task : ofB) {
				assertThat(queries.standbyHostsOf(task.partition()))
					.as("learners are standbys, which Kafka Streams names as standby hosts of %s", task)
					.containsAnyOf("a", "c");
			}
			assertThat(moved).as("longest stall of b's tasks").isLessThanOrEqualTo(STALL_BOUND);
			assertThat(unmoved).as("longest stall of a's and c's tasks").isLessThanOrEqualTo(STALL_BOUND);
			assertThat(queries.wentBack()).as("answers lower than one given before").isEmpty();
			assertThat(queries.answers()).filteredOn(MarkerQueries.Answer::answered)
				.extracting(MarkerQueries.Answer::host)
				.as("answered by active hosts only").containsAnyOf("b").containsAnyOf("a", "c");
			run.verifyCounts(producer);
		}
	}

	private static Set<TaskId> inputTasksOf(StreamsInstance instance) {
		return instance.activeTasks().stream().filter((task) -> task.subtopology() == 0).collect(Collectors.toSet());
	}

	private static Set<Integer> partitions(Set<TaskId> tasks) {
		return tasks.stream().map(TaskId::partition).collect(Collectors.toSet());
	}

}
