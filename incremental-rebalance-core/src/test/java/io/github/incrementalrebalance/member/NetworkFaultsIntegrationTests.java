package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.github.incrementalrebalance.planner.MemberPlan;
import io.github.incrementalrebalance.testkit.FaultProxy;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.RestoreThrottle;
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

import static io.github.incrementalrebalance.member.DrainScenarioGroup.assertRestoredAtPromotionAtMostTheLag;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Drains on a network that fails between the members and the broker: every member reaches the broker through a
 * {@link FaultProxy} that cuts, by client id, the connections of the clients a test names. Three members of an
 * exactly-once application whose learners restore slowly (throttled) until the test lets them; b leaves, and the
 * fault strikes once the leader has acknowledged the leave and placed b's learners. Whatever the network does, a
 * leave without a deadline hands over to ready learners: it never ends cold because of slowness or a partition alone.
 */
@Tag(TestTags.BROKER)
class NetworkFaultsIntegrationTests {

	/** Longer than the members' session timeout (6 s): a member cut off this long is out of the group. */
	private static final Duration LONG_CUT = Duration.ofSeconds(12);

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.withFaultProxy();

	@TempDir
	Path stateRoot;

	/**
	 * Every control-topic client of the group (readers, writers, probes: the members' only way to tell each other
	 * about the leave and the learners' progress) cut for longer than a session while b's learners get ready. The
	 * group itself stays whole, so b keeps running its tasks; it stays leaving through the cut, and hands over to the
	 * learners once the control topic is back.
	 */
	@Test
	void controlTopicCutDuringAnAcknowledgedDrainHandsOverToWarmLearnersOnceItHeals() {
		try (Drain drain = startDraining("control-cut")) {
			try (FaultProxy.Fault cut = broker.proxy().cut((clientId) -> clientId.contains("-rebalance-control-"))) {
				drain.releaseLearners();
				await("a member that sees the control topic gone").atMost(LONG_CUT)
					.until(() -> drain.members.stream()
						.anyMatch((member) -> member.runtime().controlTopicProblem().isPresent()));
				List<String> problems = new ArrayList<>();
				drain.members.forEach((member) -> member.runtime().controlTopicProblem()
					.ifPresent((problem) -> problems.add(member.name() + ": " + problem)));
				System.out.printf("Control topic cut: %s%n", problems);
				await("b leaving through the cut").during(LONG_CUT).atMost(LONG_CUT.plusSeconds(5))
					.until(() -> drain.leaver.runtime().state() == MemberState.LEAVING);
				assertThat(broker.proxy().refusedConnections()).as("connections the cut closed or refused").isPositive();
			}
			drain.assertHandedOverWarm();
		}
	}

	/**
	 * Every client of c, one of the members b's learners warm up on, cut for longer than its session timeout: the
	 * group goes on without c, c's learners are dropped, and b hands over to learners that are ready.
	 */
	@Test
	void learnersMemberCutOffLongerThanItsSessionStillEndsInAWarmHandOver() {
		try (Drain drain = startDraining("member-cut")) {
			StreamsInstance cutOff = drain.learnerHolders().get(0);
			assertThat(broker.proxy().clientIds()).as("its stream thread's and control topic's clients, named by its client id")
				.contains(cutOff.name() + "-StreamThread-1-consumer", cutOff.name() + "-rebalance-control-reader");
			try (FaultProxy.Fault cut = broker.proxy().cut(FaultProxy.clientsStartingWith(cutOff.name() + "-"))) {
				await(cutOff.name() + " out of the group").atMost(LONG_CUT)
					.until(() -> broker.groupMembers("member-cut")
						.stream()
						.noneMatch((member) -> member.clientId().startsWith(cutOff.name() + "-")));
				await("b leaving, waiting for ready learners, while c is out").during(Duration.ofSeconds(5))
					.atMost(Duration.ofSeconds(10))
					.until(() -> drain.leaver.runtime().state() == MemberState.LEAVING);
				drain.releaseLearners();
			}
			drain.assertHandedOverWarm();
			assertThat(broker.groupMembers("member-cut")).as(cutOff.name() + " back in the group")
				.anyMatch((member) -> member.clientId().startsWith(cutOff.name() + "-"));
		}
	}

	private Drain startDraining(String applicationId) {
		DrainScenarioGroup group = new DrainScenarioGroup(broker, this.stateRoot, applicationId, "conservative");
		TrackingProducer producer = group.producer();
		StreamsLauncher launcher = group.launcher();
		Map<String, RestoreThrottle> throttles = DrainScenarioGroup.throttles(200);
		List<StreamsInstance> members = throttles.entrySet()
			.stream()
			.map((entry) -> launcher.instance(entry.getKey())
				.property(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, broker.proxiedBootstrapServers())
				.property(StreamsConfig.CLIENT_ID_CONFIG, entry.getKey())
				.restoreThrottle(entry.getValue())
				.memberRuntime()
				.start())
			.toList();
		group.loadAndSettle(producer, members.toArray(StreamsInstance[]::new));
		StreamsInstance leaver = members.get(1);
		Set<TaskId> moving = leaver.activeTasks();
		leaver.runtime().leave(Optional.empty(), "test");
		await("the leader acknowledged b's leave and placed its learners").atMost(Duration.ofMinutes(1))
			.until(() -> leaver.plan().map((plan) -> plan.leaving() && !plan.beingLearned().isEmpty()).orElse(false));
		return new Drain(group, producer, launcher, members, leaver, moving, throttles);
	}

	/**
	 * A drain under way: b leaving, its learners held back until released.
	 */
	private record Drain(DrainScenarioGroup group, TrackingProducer producer, StreamsLauncher launcher,
			List<StreamsInstance> members, StreamsInstance leaver, Set<TaskId> moving,
			Map<String, RestoreThrottle> throttles) implements AutoCloseable {

		List<StreamsInstance> learnerHolders() {
			return this.members.stream()
				.filter((member) -> member.plan().map(MemberPlan::learning).map((learning) -> !learning.isEmpty())
					.orElse(false))
				.toList();
		}

		void releaseLearners() {
			this.throttles.values().forEach(RestoreThrottle::release);
		}

		/**
		 * b handed over to ready learners, nothing of its state restored at promotion, every other member running
		 * its tasks, counts exact.
		 */
		void assertHandedOverWarm() {
			await("b drained").atMost(Duration.ofMinutes(2))
				.until(() -> this.leaver.runtime().state() == MemberState.CLOSED);
			System.out.printf("Drain through the fault: %s%n",
					this.leaver.runtime().drainOutcome().map(DrainOutcome::describe).orElse("none"));
			assertThat(this.leaver.runtime().drainOutcome()).as("every task went to a ready learner")
				.contains(DrainOutcome.of(DrainOutcome.Reason.LEARNERS_READY, 0));
			StreamsInstance[] stayers = this.members.stream()
				.filter((member) -> member != this.leaver)
				.toArray(StreamsInstance[]::new);
			await("b's tasks running on the others").atMost(Duration.ofMinutes(1))
				.until(() -> StreamsInstance.allRunning(stayers)
						&& StreamsInstance.activeTasksOf(stayers).containsAll(this.moving));
			assertRestoredAtPromotionAtMostTheLag(this.moving, stayers);
			this.group.verifyCounts(this.producer);
		}

		@Override
		public void close() {
			this.launcher.close();
			this.producer.close();
		}

	}

}
