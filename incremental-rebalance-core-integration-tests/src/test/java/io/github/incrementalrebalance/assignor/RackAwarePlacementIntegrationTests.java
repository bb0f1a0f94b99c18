package io.github.incrementalrebalance.assignor;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.member.DrainOutcome;
import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.RestoredRecords;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code rack.aware.assignment.strategy=min_traffic} on a real cluster: two brokers in racks {@code a} and {@code b},
 * partition {@code p} of the input and of the changelog on the broker in rack {@code a} when {@code p} is even, in
 * {@code b} when odd; three instances, two in rack {@code a} and one in {@code b}. Kafka's own assignor (its rack-aware
 * high-availability assignor) places the tasks of three instances started together; with the learner assignor,
 * {@code b1} runs all tasks and their state first, then {@code a1} and {@code a2} join and take theirs through
 * learners. The learners' actives cost no more cross-rack traffic than Kafka's, measured from the brokers' partition
 * placement. Then an instance of rack {@code a} leaves: its tasks still move through learners (to the warm members
 * first, in either rack), nothing restored at promotion beyond the threshold, and then back into rack {@code a}
 * through learners, until no task crosses racks.
 */
@Tag(TestTags.BROKER)
class RackAwarePlacementIntegrationTests {

	private static final int PARTITIONS = 6;

	private static final long ACCEPTABLE_LAG = 1_000;

	private static final int TRAFFIC_COST = 10;

	private static final Map<String, String> RACKS = Map.of("a1", "a", "a2", "a", "b1", "b");

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.inRacks("a", "b");

	@TempDir
	Path stateRoot;

	@Test
	void activesCostNoMoreCrossRackTrafficThanKafkasAssignorAndADrainStillHandsOverThroughLearners() {
		long kafka = settledCostWithKafkasAssignor();

		CountingApplication run = application("racks-learners");
		try (TrackingProducer producer = run.producer(); StreamsLauncher launcher = launcher(run)) {
			StreamsInstance b1 = inRack(launcher, "b1").memberRuntime().start();
			run.loadAndSettle(producer, (int) (20 * ACCEPTABLE_LAG), b1);
			StreamsInstance a1 = inRack(launcher, "a1").memberRuntime().start();
			StreamsInstance a2 = inRack(launcher, "a2").memberRuntime().start();
			await("learner plan settled").atMost(Duration.ofMinutes(2))
				.until(() -> StreamsInstance.planSettled(a1, a2, b1)
						&& StreamsInstance.activeTasksOf(a1, a2, b1).size() == PARTITIONS
						&& a1.activeTasks().size() == 2 && a2.activeTasks().size() == 2);
			RestoredRecords.assertRestoredAtPromotionAtMost(ACCEPTABLE_LAG, StreamsInstance.activeTasksOf(a1, a2),
					a1.restoredRecords(), a2.restoredRecords());
			long learners = cost(run, a1, a2, b1);
			System.out.printf("Cross-rack traffic cost of the actives (%d per partition outside its member's rack): "
					+ "%d learner assignor, %d Kafka's assignor%n", TRAFFIC_COST, learners, kafka);
			assertThat(learners).as("b1 runs two of the three rack-b tasks; rack a runs the third")
				.isEqualTo(20)
				.isLessThanOrEqualTo(kafka);

			Set<TaskId> ofA2 = a2.activeTasks();
			assertThat(a2.runtime().leave(Optional.empty(), "test")).isTrue();
			await("a2 drained").atMost(Duration.ofMinutes(2)).until(() -> a2.runtime().state() == MemberState.CLOSED);
			assertThat(a2.runtime().drainOutcome()).map(DrainOutcome::describe).hasValueSatisfying(
					(outcome) -> assertThat(outcome).contains("learners-ready"));
			await("a1 and b1 run every task").atMost(Duration.ofMinutes(1))
				.until(() -> StreamsInstance.allRunning(a1, b1)
						&& StreamsInstance.activeTasksOf(a1, b1).size() == PARTITIONS);
			RestoredRecords.assertRestoredAtPromotionAtMost(ACCEPTABLE_LAG, ofA2, a1.restoredRecords(),
					b1.restoredRecords());
			await("the rack-a tasks back in rack a, through learners").atMost(Duration.ofMinutes(1))
				.until(() -> StreamsInstance.planSettled(a1, b1) && cost(run, a1, b1) == 0);
			RestoredRecords.assertRestoredAtPromotionAtMost(ACCEPTABLE_LAG, a1.activeTasks(), a1.restoredRecords());
			run.verifyCounts(producer);
		}
	}

	private long settledCostWithKafkasAssignor() {
		CountingApplication run = application("racks-kafka");
		try (TrackingProducer producer = run.producer(); StreamsLauncher launcher = launcher(run)) {
			StreamsInstance a1 = inRack(launcher, "a1").start();
			StreamsInstance a2 = inRack(launcher, "a2").start();
			StreamsInstance b1 = inRack(launcher, "b1").start();
			run.loadAndSettle(producer, (int) (20 * ACCEPTABLE_LAG), a1, a2, b1);
			run.verifyCounts(producer);
			return cost(run, a1, a2, b1);
		}
	}

	/**
	 * The application, its changelog created beforehand so that its partitions sit where the input's do.
	 */
	private static CountingApplication application(String applicationId) {
		CountingApplication application = new CountingApplication(broker, applicationId, PARTITIONS);
		broker.createTopics(PARTITIONS, Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT),
				applicationId + "-counts-changelog");
		return application;
	}

	/**
	 * Kafka's measure: the traffic cost for each source and changelog partition of an active task whose replica is
	 * outside its instance's rack.
	 */
	private static long cost(CountingApplication run, StreamsInstance... instances) {
		Map<String, List<Set<String>>> racksOfTopic = new HashMap<>();
		String changelog = run.applicationId() + "-counts-changelog";
		try {
			Map<String, TopicDescription> topics = broker.admin()
				.describeTopics(List.of(run.input(), changelog))
				.allTopicNames()
				.get();
			topics.forEach((name, description) -> racksOfTopic.put(name, description.partitions()
				.stream()
				.sorted((x, y) -> Integer.compare(x.partition(), y.partition()))
				.map(TopicPartitionInfo::replicas)
				.map((replicas) -> replicas.stream().map(Node::rack).collect(Collectors.toSet()))
				.toList()));
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
		long cost = 0;
		for (StreamsInstance instance : instances) {
			String rack = RACKS.get(instance.name());
			for (TaskId task : instance.activeTasks()) {
				for (String topic : List.of(run.input(), changelog)) {
					if (!racksOfTopic.get(topic).get(task.partition()).contains(rack)) {
						cost += TRAFFIC_COST;
					}
				}
			}
		}
		return cost;
	}

	private static StreamsLauncher.Spec inRack(StreamsLauncher launcher, String name) {
		return launcher.instance(name).property(ConsumerConfig.CLIENT_RACK_CONFIG, RACKS.get(name));
	}

	private StreamsLauncher launcher(CountingApplication application) {
		return application.launcher(this.stateRoot.resolve(application.applicationId()))
			.property(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, ACCEPTABLE_LAG)
			.property(StreamsConfig.RACK_AWARE_ASSIGNMENT_STRATEGY_CONFIG,
					StreamsConfig.RACK_AWARE_ASSIGNMENT_STRATEGY_MIN_TRAFFIC)
			.property(LearnerConfig.LEARNER_PROBE_INTERVAL_MS_CONFIG, Duration.ofMinutes(5).toMillis());
	}

}
