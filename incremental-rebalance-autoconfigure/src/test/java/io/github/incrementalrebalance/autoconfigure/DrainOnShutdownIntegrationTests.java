package io.github.incrementalrebalance.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import ch.qos.logback.classic.Level;
import io.github.incrementalrebalance.control.LeaveRecord;
import io.github.incrementalrebalance.member.DrainOutcome;
import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.member.TaskRole;
import io.github.incrementalrebalance.member.TaskState;
import io.github.incrementalrebalance.testkit.ExactCountVerifier;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.LogCapture;
import io.github.incrementalrebalance.testkit.RestoreThrottle;
import io.github.incrementalrebalance.testkit.RestoredRecords;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.streams.processor.TaskId;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.context.ConfigurableApplicationContext;

import static io.github.incrementalrebalance.autoconfigure.CountingBootApplication.activeTasks;
import static io.github.incrementalrebalance.autoconfigure.CountingBootApplication.running;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two Spring Boot applications in one JVM on a real broker: closing the context of one that has
 * {@code incremental-rebalance.drain.on-shutdown=true} (what SIGTERM does) drains it through the other before its
 * Kafka Streams closes; a close that comes while an operator's drain runs lets that drain go on, within the drain
 * timeout even when the learners cannot finish.
 */
@Tag(TestTags.BROKER)
@Tag(TestTags.CLIENT_LINE)
class DrainOnShutdownIntegrationTests {

	private static final int PARTITIONS = 4;

	private static final int ACCEPTABLE_LAG = 100;

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	/**
	 * Real state, restored through a throttle (a slower disk): b's shutdown waits for a's learners of its tasks, so
	 * they move warm, restoring at most the acceptable lag at promotion, where a cold move restores the whole state
	 * (20 times that).
	 */
	@Test
	void normalShutdownDrainsFirstThroughLearnersThatRestoredTheState() {
		broker.createTopics(PARTITIONS, "shutdown-app-input", "shutdown-app-output");
		RestoreThrottle throttle = RestoreThrottle.of(2_000);
		try (TrackingProducer producer = new TrackingProducer(broker.bootstrapServers(), "shutdown-app-input");
				ConfigurableApplicationContext a = start("a", false, throttle);
				ConfigurableApplicationContext b = start("b", true, null)) {
			await("both run a share of the tasks").atMost(Duration.ofMinutes(1))
				.until(() -> running(a) && running(b) && !activeTasks(b).isEmpty()
						&& activeTasks(a).size() + activeTasks(b).size() == PARTITIONS);
			producer.load(PARTITIONS, 20 * ACCEPTABLE_LAG, 1);
			ExactCountVerifier.assertExactCounts(broker.bootstrapServers(), "shutdown-app-output",
					producer.acknowledgedCounts(), Duration.ofMinutes(2));
			Set<TaskId> ofB = activeTasks(b);
			MemberRuntime drained = b.getBean(MemberRuntimes.class).all().get(0);
			List<MemberState> states = new CopyOnWriteArrayList<>();
			drained.addStateListener(states::add);

			b.close();

			assertThat(states).as("b drained before its Kafka Streams closed")
				.containsExactly(MemberState.LEAVING, MemberState.DRAINED, MemberState.CLOSED);
			await("a runs every task").atMost(Duration.ofSeconds(30))
				.until(() -> running(a) && activeTasks(a).size() == PARTITIONS);
			assertThat(a.getBean(MemberRuntimes.class).all().get(0).state()).isEqualTo(MemberState.STABLE);
			RestoredRecords.assertRestoredAtPromotionAtMost(ACCEPTABLE_LAG, ofB, CountingBootApplication.restoredRecords(a));
			producer.load(PARTITIONS, 100, 1);
			ExactCountVerifier.assertExactCounts(broker.bootstrapServers(), "shutdown-app-output",
					producer.acknowledgedCounts(), Duration.ofMinutes(2));
		}
	}

	@Test
	void aStaticMembersShutdownIsARestartThatKeepsItsTasksWithoutADrain() {
		broker.createTopics(PARTITIONS, "static-app-input", "static-app-output");
		String[] staticB = { "incremental-rebalance.drain.on-shutdown=true", "incremental-rebalance.drain.timeout=30s",
				"spring.kafka.streams.properties.group.instance.id=static-b",
				"spring.kafka.streams.properties.consumer.session.timeout.ms=30000" };
		try (ConfigurableApplicationContext a = CountingBootApplication.start(broker, "static-app", "a", this.stateRoot,
				null, false)) {
			ConfigurableApplicationContext b = CountingBootApplication.start(broker, "static-app", "b", this.stateRoot,
					null, false, staticB);
			await("both run a share of the tasks").atMost(Duration.ofMinutes(1))
				.until(() -> running(a) && running(b) && !activeTasks(b).isEmpty()
						&& activeTasks(a).size() + activeTasks(b).size() == PARTITIONS);
			Set<TaskId> ofB = activeTasks(b);
			MemberRuntime stopping = b.getBean(MemberRuntimes.class).all().get(0);
			List<MemberState> states = new CopyOnWriteArrayList<>();
			stopping.addStateListener(states::add);

			b.close();

			assertThat(states).as("no drain").doesNotContain(MemberState.LEAVING);
			assertThat(stopping.drainOutcome()).isEmpty();
			assertThat(a.getBean(MemberRuntimes.class).all().get(0).controlView().leaveRecord("b"))
				.as("no leave was asked").isEmpty();
			assertThat(broker.groupMembers("static-app")).as("the static member stays in the group for its restart")
				.anySatisfy((member) -> assertThat(member.groupInstanceId()).hasValueSatisfying(
						(id) -> assertThat(id).startsWith("static-b")));

			try (ConfigurableApplicationContext restarted = CountingBootApplication.start(broker, "static-app", "b",
					this.stateRoot, null, false, staticB)) {
				await("b runs its own tasks again").atMost(Duration.ofMinutes(1))
					.until(() -> running(restarted) && activeTasks(restarted).equals(ofB));
				assertThat(activeTasks(a)).as("a never took b's tasks").doesNotContainAnyElementsOf(ofB);
			}
		}
	}

	/**
	 * A platform removes a leaving pod first (it is not ready), so a SIGTERM often lands in an operator's drain: the
	 * drain goes on within the shutdown's bound, without {@code drain.on-shutdown}, and ends as any leave does, on the
	 * control topic and in the survivors' counters. Here a's learners of b's tasks are held behind when the shutdown
	 * comes, and let go once it waits for them.
	 */
	@Test
	void aShutdownDuringAnAskedDrainLetsTheDrainFinishAndRecordsHowItEnded() {
		broker.createTopics(PARTITIONS, "asked-app-input", "asked-app-output");
		RestoreThrottle throttle = RestoreThrottle.of(200);
		String lag = "spring.kafka.streams.properties.acceptable.recovery.lag=" + ACCEPTABLE_LAG;
		try (TrackingProducer producer = new TrackingProducer(broker.bootstrapServers(), "asked-app-input");
				ConfigurableApplicationContext a = CountingBootApplication.start(broker, "asked-app", "a",
						this.stateRoot, throttle, false, lag);
				ConfigurableApplicationContext b = CountingBootApplication.start(broker, "asked-app", "b",
						this.stateRoot, null, false, lag, "incremental-rebalance.drain.timeout=30s")) {
			await("both run a share of the tasks").atMost(Duration.ofMinutes(1))
				.until(() -> running(a) && running(b) && !activeTasks(b).isEmpty()
						&& activeTasks(a).size() + activeTasks(b).size() == PARTITIONS);
			producer.load(PARTITIONS, 20 * ACCEPTABLE_LAG, 1);
			ExactCountVerifier.assertExactCounts(broker.bootstrapServers(), "asked-app-output",
					producer.acknowledgedCounts(), Duration.ofMinutes(2));
			Set<TaskId> ofB = activeTasks(b);
			MemberRuntime leaving = b.getBean(MemberRuntimes.class).all().get(0);
			MemberRuntime staying = a.getBean(MemberRuntimes.class).all().get(0);
			List<MemberState> states = new CopyOnWriteArrayList<>();
			leaving.addStateListener(states::add);
			assertThat(leaving.leave(Optional.empty(), "operator")).isTrue();
			await("a's learners of b's tasks restore, still behind").atMost(Duration.ofMinutes(1))
				.until(() -> learnersBehind(staying, ofB));
			throttle.hold();

			Thread sigterm = new Thread(b::close, "sigterm");
			sigterm.start();

			await("the shutdown waits for the drain").atMost(Duration.ofSeconds(10))
				.during(Duration.ofSeconds(1))
				.until(() -> sigterm.isAlive() && leaving.state() == MemberState.LEAVING && running(b));
			throttle.release();
			await("b drained and closed within its 30 s bound").atMost(Duration.ofSeconds(35))
				.until(() -> !sigterm.isAlive());
			assertThat(states).containsExactly(MemberState.LEAVING, MemberState.DRAINED, MemberState.CLOSED);
			assertThat(leaving.drainOutcome()).hasValueSatisfying(
					(outcome) -> assertThat(outcome.reason()).isEqualTo(DrainOutcome.Reason.LEARNERS_READY));
			await("a reads how b's leave ended").atMost(Duration.ofSeconds(30))
				.until(() -> staying.controlView().leaveRecord("b").flatMap(LeaveRecord::ended).isPresent());
			assertThat(staying.controlView().leaveRecord("b").flatMap(LeaveRecord::ended))
				.hasValue(new LeaveRecord.Ended("drained", "learners-ready", 0));
			assertThat(leavesCounted(a, "drained", "learners-ready")).as("a's leaves counter").isEqualTo(1);
			await("a runs every task").atMost(Duration.ofSeconds(30))
				.until(() -> running(a) && activeTasks(a).size() == PARTITIONS);
			RestoredRecords.assertRestoredAtPromotionAtMost(ACCEPTABLE_LAG, ofB,
					CountingBootApplication.restoredRecords(a));
			ExactCountVerifier.assertExactCounts(broker.bootstrapServers(), "asked-app-output",
					producer.acknowledgedCounts(), Duration.ofMinutes(2));
		}
	}

	/**
	 * An operator's drain of five minutes meets a shutdown: the shutdown bounds it to the drain timeout (8 s), past
	 * which it ends forced with its count, recorded and counted like any leave, and the shutdown returns within that
	 * bound and the close allowance.
	 */
	@Test
	void aShutdownBoundsAnAskedDrainToTheDrainTimeoutAndSaysTheLeaveWasForced() {
		broker.createTopics(PARTITIONS, "bounded-app-input", "bounded-app-output");
		RestoreThrottle slow = RestoreThrottle.of(50);
		String lag = "spring.kafka.streams.properties.acceptable.recovery.lag=" + ACCEPTABLE_LAG;
		// the capture opens once a started: Spring Boot resets the logging of the first application in a JVM
		try (TrackingProducer producer = new TrackingProducer(broker.bootstrapServers(), "bounded-app-input");
				ConfigurableApplicationContext a = CountingBootApplication.start(broker, "bounded-app", "a",
						this.stateRoot, slow, false, lag);
				LogCapture startLog = LogCapture.of(DrainOnShutdown.class);
				ConfigurableApplicationContext b = CountingBootApplication.start(broker, "bounded-app", "b",
						this.stateRoot, null, false, lag, "incremental-rebalance.drain.on-shutdown=true",
						"incremental-rebalance.drain.timeout=8s",
						"spring.lifecycle.timeout-per-shutdown-phase=3s")) {
			await("both run a share of the tasks").atMost(Duration.ofMinutes(1))
				.until(() -> running(a) && running(b) && !activeTasks(b).isEmpty()
						&& activeTasks(a).size() + activeTasks(b).size() == PARTITIONS);
			assertThat(startLog.messages(Level.INFO)).as("said at start, not at the SIGTERM")
				.anyMatch((message) -> message.startsWith("A shutdown drains this instance first, for at most PT13S "
						+ "(PT8S for learners, PT5S for Kafka Streams to close), then the other phases take up to PT3S"));
			producer.load(PARTITIONS, 5_000, 1);
			ExactCountVerifier.assertExactCounts(broker.bootstrapServers(), "bounded-app-output",
					producer.acknowledgedCounts(), Duration.ofMinutes(2));
			Set<TaskId> ofB = activeTasks(b);
			MemberRuntime leaving = b.getBean(MemberRuntimes.class).all().get(0);
			MemberRuntime staying = a.getBean(MemberRuntimes.class).all().get(0);
			assertThat(leaving.leave(Optional.of(Duration.ofMinutes(5)), "operator")).isTrue();
			await("a's learners of b's tasks restore, behind").atMost(Duration.ofMinutes(1))
				.until(() -> learnersBehind(staying, ofB));
			Instant closing = Instant.now();

			b.close();

			Duration took = Duration.between(closing, Instant.now());
			assertThat(took).as("the drain went on up to the drain timeout, not the 3 s phase of the others")
				.isGreaterThanOrEqualTo(Duration.ofSeconds(8))
				.as("and ended within it and the close allowance, not the asked leave's 5 minutes")
				.isLessThan(Duration.ofSeconds(13));
			assertThat(leaving.drainOutcome()).hasValueSatisfying((outcome) -> {
				assertThat(outcome.kind()).isEqualTo(DrainOutcome.Kind.FORCED);
				assertThat(outcome.reason()).isEqualTo(DrainOutcome.Reason.DEADLINE_PASSED);
				assertThat(outcome.tasksMovedCold()).as("b's tasks, whose learners were not ready").isEqualTo(ofB.size());
			});
			await("a reads how b's leave ended").atMost(Duration.ofSeconds(30))
				.until(() -> staying.controlView().leaveRecord("b").flatMap(LeaveRecord::ended).isPresent());
			assertThat(staying.controlView().leaveRecord("b").flatMap(LeaveRecord::ended))
				.hasValue(new LeaveRecord.Ended("forced", "deadline-passed", ofB.size()));
			assertThat(leavesCounted(a, "forced", "deadline-passed")).as("a's leaves counter").isEqualTo(1);
			RestoredRecords restored = CountingBootApplication.restoredRecords(a);
			// released only once a restores them as active tasks: released earlier, its learners would catch up at
			// full speed while the group rebalances after b's leave, and the move would look warm
			await("a begins restoring b's tasks, still at the slow rate").atMost(Duration.ofMinutes(1))
				.until(() -> restored.restoresBegun().containsAll(ofB));
			slow.release();
			await("a runs every task").atMost(Duration.ofMinutes(1))
				.until(() -> running(a) && activeTasks(a).size() == PARTITIONS);
			assertThat(ofB).as("b's tasks, moved cold: restored on a at promotion")
				.allSatisfy((task) -> assertThat(restored.restoredInto(task)).as("task %s", task)
					.isGreaterThan(ACCEPTABLE_LAG));
			ExactCountVerifier.assertExactCounts(broker.bootstrapServers(), "bounded-app-output",
					producer.acknowledgedCounts(), Duration.ofMinutes(2));
		}
	}

	/** Whether a member learns every one of the tasks, each with a lag known and beyond the acceptable one. */
	private static boolean learnersBehind(MemberRuntime member, Set<TaskId> tasks) {
		List<TaskState> learners = member.tasks().stream().filter((task) -> task.role() == TaskRole.LEARNING).toList();
		return learners.stream().map(TaskState::task).collect(Collectors.toSet()).containsAll(tasks)
				&& learners.stream().allMatch((task) -> task.lag().isPresent() && task.lag().getAsLong() > ACCEPTABLE_LAG);
	}

	private static double leavesCounted(ConfigurableApplicationContext context, String outcome, String reason) {
		return context.getBean(MeterRegistry.class)
			.get("incremental.rebalance.leaves")
			.tags("outcome", outcome, "reason", reason)
			.counter()
			.count();
	}

	private ConfigurableApplicationContext start(String name, boolean drainOnShutdown) {
		return start(name, drainOnShutdown, null);
	}

	private ConfigurableApplicationContext start(String name, boolean drainOnShutdown,
			@Nullable RestoreThrottle throttle) {
		return CountingBootApplication.start(broker, "shutdown-app", name, this.stateRoot, throttle, false,
				"incremental-rebalance.drain.on-shutdown=" + drainOnShutdown,
				"incremental-rebalance.drain.timeout=30s",
				"spring.kafka.streams.properties.acceptable.recovery.lag=" + ACCEPTABLE_LAG);
	}

}
