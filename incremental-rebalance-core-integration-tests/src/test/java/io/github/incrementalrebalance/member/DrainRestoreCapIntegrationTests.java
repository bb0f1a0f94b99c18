package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.RestoreThrottle;
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
 * A drain in waves: b runs twelve stateful tasks and leaves, a and c take six each, and
 * {@code incremental.rebalance.drain.restores.per.member=2} lets each restore two learners at a time. Measured from
 * Kafka Streams' standby listener on a and c (a learner restores from when its state updater took it to its first
 * batch within the acceptable lag): never more than two at once on either, every one of b's tasks warmed up, the drain
 * ends drained, nothing restored at promotion beyond the acceptable lag, the counts exact.
 */
@Tag(TestTags.BROKER)
class DrainRestoreCapIntegrationTests {

	private static final int PARTITIONS = 36;

	private static final long ACCEPTABLE_LAG = 100;

	private static final int CAP = 2;

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@Test
	void aDrainRestoresAtMostTwoLearnersAtATimeOnEachMemberAndEndsDrained() {
		CountingApplication run = new CountingApplication(broker, "drain-waves", PARTITIONS);
		try (TrackingProducer producer = run.producer();
				StreamsLauncher launcher = run.launcher(this.stateRoot)
					.property(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, ACCEPTABLE_LAG)
					.property(LearnerConfig.DRAIN_RESTORES_PER_MEMBER_CONFIG, CAP)) {
			StreamsInstance a = start(launcher, "a");
			StreamsInstance b = start(launcher, "b");
			StreamsInstance c = start(launcher, "c");
			run.loadAndSettle(producer, (int) (30 * ACCEPTABLE_LAG), a, b, c);
			Set<TaskId> ofB = b.activeTasks();
			assertThat(ofB).as("b's tasks").hasSizeGreaterThanOrEqualTo(2 * CAP + 1);

			assertThat(b.runtime().leave(Optional.empty(), "test")).isTrue();

			b.awaitDrainedWarm(Duration.ofMinutes(2));
			await("a and c run every task").atMost(Duration.ofMinutes(1))
				.until(() -> StreamsInstance.allRunning(a, c)
						&& StreamsInstance.activeTasksOf(a, c).size() == PARTITIONS
						&& run.gapMeter().allProcessedSince(ofB, Instant.now().minusMillis(300)));
			int mostAnywhere = 0;
			for (StreamsInstance learner : List.of(a, c)) {
				List<RestoredRecords.WarmUp> warmUps = ofB.stream()
					.map((task) -> learner.restoredRecords().restoringFromPlacement(task, ACCEPTABLE_LAG))
					.flatMap(Optional::stream)
					.toList();
				int most = mostAtOnce(warmUps);
				System.out.printf("Drain restores on %s, at most %d at a time: %d learners warmed up, at most %d at once%n",
						learner.name(), CAP, warmUps.size(), most);
				assertThat(most).as("learners of b's tasks restoring at once on %s", learner.name())
					.isLessThanOrEqualTo(CAP);
				mostAnywhere = Math.max(mostAnywhere, most);
			}
			// a member may hold some of b's tasks warm from the group's first rounds: its learners restore nothing
			assertThat(mostAnywhere).as("learners restoring at once somewhere: the drain restored").isPositive();
			for (TaskId task : ofB) {
				assertThat(List.of(a, c)).as("a learner of %s warmed up on a or c", task)
					.anySatisfy((learner) -> assertThat(learner.restoredRecords().warmUp(task, ACCEPTABLE_LAG))
						.isPresent());
			}
			RestoredRecords.assertRestoredAtPromotionAtMost(ACCEPTABLE_LAG, ofB, a.restoredRecords(), c.restoredRecords());
			run.verifyCounts(producer);
		}
	}

	private static StreamsInstance start(StreamsLauncher launcher, String name) {
		return launcher.instance(name).restoreThrottle(RestoreThrottle.of(2_000)).memberRuntime().start();
	}

	/** The most warm-ups under way at one moment (one that ends as another starts is not counted twice). */
	private static int mostAtOnce(List<RestoredRecords.WarmUp> warmUps) {
		List<Edge> edges = new ArrayList<>();
		warmUps.forEach((warmUp) -> {
			edges.add(new Edge(warmUp.started(), 1));
			edges.add(new Edge(warmUp.caughtUp(), -1));
		});
		edges.sort(Comparator.comparing(Edge::at).thenComparingInt(Edge::change));
		int underWay = 0;
		int most = 0;
		for (Edge edge : edges) {
			underWay += edge.change();
			most = Math.max(most, underWay);
		}
		return most;
	}

	private record Edge(Instant at, int change) {
	}

}
