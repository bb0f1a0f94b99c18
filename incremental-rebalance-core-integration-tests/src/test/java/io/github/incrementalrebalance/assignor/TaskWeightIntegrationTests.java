package io.github.incrementalrebalance.assignor;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.RestoredRecords;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code incremental.rebalance.task.weight=state-size} on a real broker: the group leader reads the changelog sizes
 * with its own admin client. One instance runs four tasks, two of them with a hundred times the state of the other
 * two; a second instance joins. Counting tasks, it would take two of the four, which in Kafka's task order are the two
 * big ones; weighing their state, it learns one big store and takes nothing else, and nothing restores at promotion
 * beyond the threshold.
 */
@Tag(TestTags.BROKER)
class TaskWeightIntegrationTests {

	private static final int PARTITIONS = 4;

	private static final long ACCEPTABLE_LAG = 1_000;

	private static final int SMALL = 200;

	private static final int BIG = 20_000;

	private static final Set<TaskId> BIG_TASKS = Set.of(new TaskId(0, 0), new TaskId(0, 1));

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@Test
	void joiningInstanceLearnsOneOfTheTwoBigStoresAndNothingElse() {
		CountingApplication run = new CountingApplication(broker, "weights", PARTITIONS);
		try (TrackingProducer producer = run.producer(); StreamsLauncher launcher = launcher(run)) {
			StreamsInstance m1 = launcher.instance("m1").memberRuntime().start();
			run.loadAndSettle(producer, SMALL, m1);
			for (int key = 0; key < BIG; key++) {
				for (TaskId task : BIG_TASKS) {
					producer.send(task.partition(), "big" + task.partition() + "-" + key, "v");
				}
			}
			producer.flush();
			await("the big stores in their changelogs").atMost(Duration.ofMinutes(1))
				.until(() -> BIG_TASKS.stream().allMatch((task) -> changelogEnd(run, task) >= BIG));

			StreamsInstance m2 = launcher.instance("m2").memberRuntime().start();
			await("learner plan settled").atMost(Duration.ofMinutes(2))
				.until(() -> StreamsInstance.planSettled(m1, m2)
						&& StreamsInstance.activeTasksOf(m1, m2).size() == PARTITIONS && !m2.activeTasks().isEmpty());

			assertThat(m2.activeTasks()).hasSize(1).isSubsetOf(BIG_TASKS);
			assertThat(m1.activeTasks()).hasSize(3).containsAnyElementsOf(BIG_TASKS);
			TaskId moved = m2.activeTasks().iterator().next();
			RestoredRecords.assertRestoredAtPromotionAtMost(ACCEPTABLE_LAG, Set.of(moved), m2.restoredRecords());
			assertThat(m1.runtime().assignorStatus().weightProblem()).isEmpty();
			assertThat(m1.runtime().assignorStatus().fallbacks()).isZero();
			run.verifyCounts(producer);
		}
	}

	private static long changelogEnd(CountingApplication run, TaskId task) {
		TopicPartition partition = new TopicPartition(run.applicationId() + "-counts-changelog", task.partition());
		try {
			return broker.admin().listOffsets(Map.of(partition, OffsetSpec.latest())).all().get().get(partition).offset();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException(ex.getCause());
		}
	}

	private StreamsLauncher launcher(CountingApplication application) {
		return application.launcher(this.stateRoot.resolve(application.applicationId()))
			.property(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, ACCEPTABLE_LAG)
			.property(LearnerConfig.TASK_WEIGHT_CONFIG, "state-size")
			.property(LearnerConfig.LEARNER_PROBE_INTERVAL_MS_CONFIG, Duration.ofMinutes(5).toMillis());
	}

}
