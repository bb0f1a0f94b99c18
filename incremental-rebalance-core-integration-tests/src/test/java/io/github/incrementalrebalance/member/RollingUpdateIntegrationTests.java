package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.github.incrementalrebalance.testkit.GapMeter;
import io.github.incrementalrebalance.testkit.HandOverTimeline;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.ProductionApplication;
import io.github.incrementalrebalance.testkit.RestoreThrottle;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.ThrottledRestoreSupplier;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static io.github.incrementalrebalance.testkit.ProductionApplication.STALL_BOUND;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A rolling update of three instances of the production-shaped application (four stream threads each) at Kafka's
 * default heartbeat and session, as a Deployment rolls: a new instance is started and ready before an old one is
 * shut down, one at a time. With learners, ready means it runs its share of the tasks, moved to it warm, and an old
 * instance is drained; Kafka alone, ready means {@code RUNNING}, and an old instance closes with a real LeaveGroup.
 * Both run side by side on the same data, restores throttled the same way (a slower disk).
 */
@Tag(TestTags.BROKER)
@Tag(TestTags.TIMING)
class RollingUpdateIntegrationTests {

	private static final int PARTITIONS = 6;

	private static final int KEYS_PER_TASK = 2_000;

	/**
	 * Every input task holds about 10 000 store records: restored cold, each takes 2 s. A learner promoted at the
	 * acceptable lag restores that much at this rate, 0.2 s at most (at 2 000 records a second it was 0.5 s, which
	 * with Kafka Streams' own activation passed 1 s in one run of ten).
	 */
	private static final long RESTORE_RATE = 5_000;

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@Test
	void rollingUpdateThroughLearnersStallsWithinItsBoundAndRestoresNothingAtPromotion() {
		Rollout learners = rollWithLearners();
		Rollout kafka = rollWithKafkaAlone();
		System.out.printf("Rolling update of 3 instances x %d threads at Kafka's default heartbeat: longest stall "
				+ "%d ms through learners (%s), %d ms Kafka alone (real leave-group); records restored at promotion %d "
				+ "and %d (bound %d ms)%n", ProductionApplication.THREADS, learners.stall().toMillis(),
				learners.where(), kafka.stall().toMillis(), learners.restored(), kafka.restored(),
				STALL_BOUND.toMillis());
		if (learners.stall().compareTo(STALL_BOUND) > 0) {
			System.out.printf("Rolling update through learners: the longest stall, %s, moved it %s -> %s; around it:%n%s",
					learners.where(), learners.gap().before(), learners.gap().after(), learners.timeline());
		}
		assertThat(learners.stall()).as("longest stall of an input task through learners")
			.isLessThanOrEqualTo(STALL_BOUND);
		assertThat(kafka.stall()).as("Kafka alone, side by side").isGreaterThan(learners.stall());
	}

	private Rollout rollWithLearners() {
		ProductionApplication run = new ProductionApplication(broker, "roll-learners", PARTITIONS);
		try (TrackingProducer producer = run.producer(); StreamsLauncher launcher = run.launcher(this.stateRoot)) {
			List<StreamsInstance> running = new ArrayList<>();
			for (String name : List.of("a1", "b1", "c1")) {
				running.add(ProductionApplication.member(launcher, name, RESTORE_RATE));
			}
			run.loadAndSettle(producer, KEYS_PER_TASK, running.toArray(StreamsInstance[]::new));
			List<StreamsInstance> all = new ArrayList<>(running);
			List<String> leaves = new ArrayList<>();
			Instant rollStarted = Instant.now();
			for (StreamsInstance old : List.copyOf(running)) {
				StreamsInstance next = ProductionApplication.member(launcher, old.name().charAt(0) + "2", RESTORE_RATE);
				all.add(next);
				running.add(next);
				// ready as a readiness probe sees it: running its share, and every task processing again (a leave
				// asked while a task moved in the last round was still starting delayed its first records by a round)
				await(next.name() + " ready: running its share").atMost(Duration.ofMinutes(2))
					.until(() -> !next.activeTasks().isEmpty()
							&& StreamsInstance.planSettled(running.toArray(StreamsInstance[]::new))
							&& run.gapMeter().allProcessedSince(run.inputTasks(), Instant.now().minusMillis(300)));
				Instant asked = Instant.now();
				assertThat(old.runtime().leave(Optional.empty(), "rolling update")).isTrue();
				await(old.name() + " drained").atMost(Duration.ofMinutes(2))
					.until(() -> old.runtime().state() == MemberState.CLOSED);
				leaves.add(old.name() + " asked to leave at " + asked + ", closed by " + Instant.now());
				assertThat(old.runtime().drainOutcome()).as("how %s's leave ended", old.name())
					.hasValueSatisfying((outcome) -> assertThat(outcome.kind()).isEqualTo(DrainOutcome.Kind.DRAINED));
				running.remove(old);
			}
			awaitEveryInputTaskRunning(run, running);
			GapMeter.Gap stall = run.gapMeter().longestGapOf(run.inputTasks(), rollStarted, Instant.now());
			assertThat(ProductionApplication.restoredAtPromotion(all)).as("records restored at promotion")
				.allSatisfy((task, records) -> assertThat(records)
					.isLessThanOrEqualTo(ProductionApplication.ACCEPTABLE_LAG));
			run.verifyCounts(producer);
			return new Rollout(stall, restored(all), timeline(all, stall, leaves));
		}
	}

	/**
	 * What the instances did around a stall, in ms from its start: the hand-over's steps when it was one, their state
	 * changes, and the leaves.
	 */
	private static String timeline(List<StreamsInstance> instances, GapMeter.Gap stall, List<String> leaves) {
		Instant from = stall.from().minusSeconds(3);
		Instant to = stall.to().plusSeconds(1);
		StringBuilder lines = new StringBuilder();
		HandOverTimeline.of(stall, instances)
			.ifPresent((handOver) -> lines.append(handOver).append(System.lineSeparator()));
		for (StreamsInstance instance : instances) {
			instance.stateChangesSince(from).stream()
				.filter((change) -> change.at().isBefore(to))
				.forEach((change) -> lines.append(String.format("  %+6d ms %s %s -> %s%n",
						Duration.between(stall.from(), change.at()).toMillis(), instance.name(), change.from(),
						change.to())));
		}
		leaves.forEach((leave) -> lines.append("  ").append(leave).append(System.lineSeparator()));
		return lines.toString();
	}

	private Rollout rollWithKafkaAlone() {
		ProductionApplication run = new ProductionApplication(broker, "roll-kafka", PARTITIONS);
		try (TrackingProducer producer = run.producer(); StreamsLauncher launcher = run.launcher(this.stateRoot)) {
			List<StreamsInstance> running = new ArrayList<>(List.of(plain(launcher, "a1"), plain(launcher, "b1"),
					plain(launcher, "c1")));
			run.loadAndSettle(producer, KEYS_PER_TASK, running.toArray(StreamsInstance[]::new));
			List<StreamsInstance> all = new ArrayList<>(running);
			Instant rollStarted = Instant.now();
			for (StreamsInstance old : List.copyOf(running)) {
				StreamsInstance next = plain(launcher, old.name().charAt(0) + "2");
				all.add(next);
				running.add(next);
				next.awaitRunning();
				awaitEveryInputTaskRunning(run, running);
				old.close();
				running.remove(old);
				awaitEveryInputTaskRunning(run, running);
			}
			GapMeter.Gap stall = run.gapMeter().longestGapOf(run.inputTasks(), rollStarted, Instant.now());
			run.verifyCounts(producer);
			return new Rollout(stall, restored(all), "");
		}
	}

	private static void awaitEveryInputTaskRunning(ProductionApplication run, List<StreamsInstance> running) {
		StreamsInstance[] instances = running.toArray(StreamsInstance[]::new);
		await("every input task running").atMost(Duration.ofMinutes(2))
			.until(() -> StreamsInstance.allRunning(instances)
					&& StreamsInstance.activeTasksOf(instances).containsAll(run.inputTasks())
					&& run.gapMeter().allProcessedSince(run.inputTasks(), Instant.now().minusMillis(300)));
	}

	private static long restored(List<StreamsInstance> instances) {
		return ProductionApplication.restoredAtPromotion(instances).values().stream().mapToLong(Long::longValue).sum();
	}

	private static StreamsInstance plain(StreamsLauncher launcher, String name) {
		RestoreThrottle throttle = RestoreThrottle.of(RESTORE_RATE);
		return launcher.instance(name)
			.clientSupplier((supplier) -> new MemberClientSupplier(new ThrottledRestoreSupplier(supplier, throttle)))
			.start();
	}

	/**
	 * What one rollout cost.
	 * @param gap the longest time an input task went without processing, from the first new instance's start
	 * @param restored the records restored into active tasks on every instance
	 * @param timeline what the instances did around the longest stall
	 */
	private record Rollout(GapMeter.Gap gap, long restored, String timeline) {

		Duration stall() {
			return this.gap.length();
		}

		String where() {
			return this.gap.task() + " from " + this.gap.from();
		}

	}

}
