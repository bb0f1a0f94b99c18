package io.github.incrementalrebalance.assignor;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.member.MemberClientSupplier;
import io.github.incrementalrebalance.identity.MemberIdentity;
import io.github.incrementalrebalance.planner.Plan;
import io.github.incrementalrebalance.planner.RebalancingMode;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.AssignmentError;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The learner assignor on a real broker: three instances under exactly-once with 100 x
 * {@code acceptable.recovery.lag} records of state per task; a fourth joins. It gets a learner first, and the task
 * moves only once the learner is ready: the records it restores when the task becomes active are within the
 * threshold, where a plain move would restore the whole state. The moves here come from the assignor's follow-up
 * (the member-side trigger belongs to the drain).
 */
@Tag(TestTags.BROKER)
class LearnerScaleUpIntegrationTests {

	private static final int PARTITIONS = 6;

	private static final long ACCEPTABLE_LAG = 1_000;

	private static final int KEYS_PER_TASK = (int) (50 * ACCEPTABLE_LAG);

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@Test
	void newcomerLearnsBeforeItRunsAndRestoresLessThanTheThresholdAtPromotion() {
		CountingApplication application = new CountingApplication(broker, "learner-scale-up", PARTITIONS);
		List<Plan> plans = new CopyOnWriteArrayList<>();
		try (TrackingProducer producer = application.producer();
				StreamsLauncher launcher = application.launcher(this.stateRoot)
					.property(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2)
					.property(StreamsConfig.TASK_ASSIGNOR_CLASS_CONFIG, LearnerTaskAssignor.class.getName())
					.property(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, ACCEPTABLE_LAG)
					.property(LearnerConfig.LEARNER_PROBE_INTERVAL_MS_CONFIG, 2_000L)
					.property(PlanListener.CONFIG, (PlanListener) (plan, error) -> {
						if (error == AssignmentError.NONE) {
							plans.add(plan);
						}
					})) {
			StreamsInstance a = start(launcher, "a");
			StreamsInstance b = start(launcher, "b");
			StreamsInstance c = start(launcher, "c");
			application.loadAndSettle(producer, KEYS_PER_TASK, a, b, c);
			int plansBefore = plans.size();

			StreamsInstance d = start(launcher, "d");

			await("a task active on the newcomer").atMost(Duration.ofMinutes(2))
				.until(() -> StreamsInstance.allRunning(a, b, c, d) && !d.activeTasks().isEmpty());
			await("the group settled").atMost(Duration.ofMinutes(1))
				.until(() -> settled(plans.get(plans.size() - 1)) && StreamsInstance.allRunning(a, b, c, d));
			List<Plan> afterJoin = plans.subList(plansBefore, plans.size());
			Set<TaskId> movedToD = d.activeTasks();
			for (TaskId moved : movedToD) {
				int firstLearning = indexOf(afterJoin, (plan) -> plan.member("d")
					.map((member) -> member.learning().containsKey(moved))
					.orElse(false));
				int firstActive = indexOf(afterJoin, (plan) -> plan.member("d")
					.map((member) -> member.active().contains(moved))
					.orElse(false));
				assertThat(firstLearning).as("d learns %s before it runs it", moved).isGreaterThanOrEqualTo(0)
					.isLessThan(firstActive);
				assertThat(d.restoredRecords().restoredInto(moved)).as("records restored on d at promotion of %s",
						moved)
					.isLessThanOrEqualTo(ACCEPTABLE_LAG);
				System.out.printf("Newcomer d restored %d records of %s at promotion (state: %d records per task)%n",
						d.restoredRecords().restoredInto(moved), moved, KEYS_PER_TASK);
			}
			assertThat(d.restoredRecords().promoted()).containsAll(movedToD);
			afterJoin.stream()
				.flatMap((plan) -> plan.moves().stream())
				.forEach((move) -> assertThat(move.lag()).as("lag of %s when it got %s", move.to(), move.task())
					.isLessThanOrEqualTo(ACCEPTABLE_LAG));

			application.verifyCounts(producer);
		}
	}

	private static StreamsInstance start(StreamsLauncher launcher, String name) {
		StreamsLauncher.Spec spec = launcher.instance(name).clientSupplier(MemberClientSupplier::new);
		MemberIdentity.newIncarnation(name, RebalancingMode.INCREMENTAL, Instant.now())
			.clientTags()
			.forEach((key, value) -> spec.property(StreamsConfig.CLIENT_TAG_PREFIX + key, value));
		return spec.start();
	}

	/**
	 * No learner, nothing waiting and no task only revoked (which Kafka follows up at once).
	 */
	private static boolean settled(Plan plan) {
		return plan.waiting().isEmpty() && plan.moves().stream().allMatch((move) -> move.from().isEmpty())
				&& plan.members().values().stream().allMatch((member) -> member.learning().isEmpty());
	}

	private static int indexOf(List<Plan> plans, Predicate<Plan> test) {
		for (int i = 0; i < plans.size(); i++) {
			if (test.test(plans.get(i))) {
				return i;
			}
		}
		return -1;
	}

}
