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
 * A drain in waves: b runs eight stateful tasks and leaves, a and c take four each, and
 * {@code incremental.rebalance.drain.restores.per.member=2} lets each restore two learners at a time. Measured from
 * Kafka Streams' standby listener on a and c (a learner restores from when its state updater took it to its first
 * batch within the acceptable lag): never more than two at once on either, every one of b's tasks warmed up, the drain
 * ends drained, nothing restored at promotion beyond the acceptable lag, the counts exact. Without the cap the same
 * drain restores more than two at once.
 */
@Tag(TestTags.BROKER)
class DrainRestoreCapIntegrationTests {

	private static final int PARTITIONS = 24;

	private static final long ACCEPTABLE_LAG = 100;

	private static final int CAP = 2;

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@Test
	void aDrainRestoresAtMostTwoLearnersAtATimeOnEachMemberAndEndsDrained() {
		int most = drainB("drain-waves", true);

		// a member may hold some of b's tasks warm from the group's first rounds: its learners restore nothing
		assertThat(most).as("learners of b's tasks restoring at once on a or c").isBetween(1, CAP);
	}

	/**
	 * The control: the same group and drain without the cap restore more than two of b's tasks at once on a member,
	 * so the test above sees the cap, not a group that never restores more than two at once anyway.
	 */
	@Test
	void withoutTheCapTheSameDrainRestoresMoreThanTwoAtOnce() {
		int most = drainB("drain-at-once", false);

		assertThat(most).as("learners of b's tasks restoring at once on a or c").isGreaterThan(CAP);
	}

	/**
	 * Starts a, b and c, drains b and checks that it ended drained with nothing restored at promotion beyond the
	 * acceptable lag and the counts exact.
	 * @return the most of b's tasks that restored at once on a or c
	 */
	private int drainB(String application, boolean capped) {
		CountingApplication run = new CountingApplication(broker, application, PARTITIONS);
		StreamsLauncher configured = run.launcher(this.stateRoot)
			.property(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, ACCEPTABLE_LAG);
		if (capped) {
			configured.property(LearnerConfig.DRAIN_RESTORES_PER_MEMBER_CONFIG, CAP);
		}
		try (TrackingProducer producer = run.producer(); StreamsLauncher launcher = configured) {
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
				System.out.printf("Drain restores on %s, %s: %d learners warmed up, at most %d at once%n",
						learner.name(), capped ? "at most " + CAP + " at a time" : "no cap", warmUps.size(), most);
				mostAnywhere = Math.max(mostAnywhere, most);
			}
			for (TaskId task : ofB) {
				assertThat(List.of(a, c)).as("a learner of %s warmed up on a or c", task)
					.anySatisfy((learner) -> assertThat(learner.restoredRecords().warmUp(task, ACCEPTABLE_LAG))
						.isPresent());
			}
			RestoredRecords.assertRestoredAtPromotionAtMost(ACCEPTABLE_LAG, ofB, a.restoredRecords(), c.restoredRecords());
			run.verifyCounts(producer);
			return mostAnywhere;
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
