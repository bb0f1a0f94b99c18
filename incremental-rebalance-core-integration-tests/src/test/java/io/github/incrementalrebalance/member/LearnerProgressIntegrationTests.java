package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.control.ControlCodec;
import io.github.incrementalrebalance.control.DrainProgress;
import io.github.incrementalrebalance.control.ProgressRecord;
import io.github.incrementalrebalance.control.ProgressRecord.LearnerProgress;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.RestoreThrottle;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The learners' progress on a real broker: b drains to learners on a and c whose restores are throttled, so a warm-up
 * takes seconds. Any member's control-topic view shows every learner with its lag, rate and ETA, the ETA comes true,
 * and each member publishes one small record per interval while it has learners, then deletes it.
 */
@Tag(TestTags.BROKER)
class LearnerProgressIntegrationTests {

	private static final int PARTITIONS = 6;

	private static final long ACCEPTABLE_LAG = 1_000;

	private static final int KEYS_PER_TASK = 10_000;

	private static final long RESTORE_RATE = 1_250;

	private static final Duration INTERVAL = Duration.ofSeconds(1);

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@Test
	void everyMemberSeesTheGroupsLearnersAndTheirEtaComesTrue() {
		CountingApplication run = new CountingApplication(broker, "learner-progress", PARTITIONS);
		try (TrackingProducer producer = run.producer();
				StreamsLauncher launcher = run.launcher(this.stateRoot)
					.property(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, ACCEPTABLE_LAG)
					.property(LearnerConfig.PROGRESS_INTERVAL_MS_CONFIG, INTERVAL.toMillis())) {
			StreamsInstance a = start(launcher, "a");
			StreamsInstance b = start(launcher, "b");
			StreamsInstance c = start(launcher, "c");
			run.loadAndSettle(producer, KEYS_PER_TASK, a, b, c);
			Set<TaskId> ofB = b.activeTasks();
			Instant askedAt = Instant.now();

			assertThat(b.runtime().leave(Optional.empty(), "test")).isTrue();

			// the first estimate of each learner made once a quarter of its lag is restored, seen from a's view
			Map<String, Estimate> estimates = new ConcurrentHashMap<>();
			Map<String, Long> firstLag = new ConcurrentHashMap<>();
			Map<String, Instant> readyAt = new ConcurrentHashMap<>();
			Map<String, DrainEstimate> drainEstimate = new ConcurrentHashMap<>();
			await("b's learners ready").atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(100)).until(() -> {
				for (ProgressRecord record : a.runtime().controlView().progress()) {
					for (LearnerProgress learner : record.learners()) {
						firstLag.putIfAbsent(learner.task(), learner.lag());
						if (learner.eta().isPresent() && !learner.ready()
								&& learner.lag() <= firstLag.get(learner.task()) * 3 / 4) {
							estimates.putIfAbsent(learner.task(), new Estimate(record.at(), learner.eta().get()));
						}
					}
				}
				// ready as sampled, or gone from the learners: the watcher may move a task before the next sample
				Set<String> learning = new HashSet<>();
				for (StreamsInstance learner : List.of(a, c)) {
					for (LearnerProgress progress : learner.runtime().learnerProgress()) {
						if (progress.ready()) {
							readyAt.putIfAbsent(progress.task(), Instant.now());
						}
						learning.add(progress.task());
					}
				}
				firstLag.keySet().stream().filter((task) -> !learning.contains(task))
					.forEach((task) -> readyAt.putIfAbsent(task, Instant.now()));
				if (drainEstimate.isEmpty() && estimates.keySet().containsAll(names(ofB))) {
					Instant now = Instant.now();
					DrainProgress.of(c.runtime().controlView().plans(), c.runtime().controlView().progress(),
							c.runtime().controlView().leaveRecords(), now)
						.forEach((drain) -> drainEstimate.put(drain.instanceId(), new DrainEstimate(now, drain)));
				}
				return readyAt.keySet().containsAll(names(ofB));
			});
			await("b drained").atMost(Duration.ofMinutes(1)).until(() -> b.runtime().state() == MemberState.CLOSED);
			Instant drainedAt = Instant.now();

			assertThat(b.runtime().drainOutcome()).hasValueSatisfying(
					(outcome) -> assertThat(outcome.kind()).isEqualTo(DrainOutcome.Kind.DRAINED));
			assertThat(estimates.keySet()).as("an estimate of every learner of b's tasks").containsAll(names(ofB));
			for (String task : names(ofB)) {
				Estimate estimate = estimates.get(task);
				Duration took = Duration.between(estimate.at(), readyAt.get(task));
				System.out.printf("Learner of %s: ETA %d ms at %s, ready after %d ms (lag %d at the start)%n", task,
						estimate.eta().toMillis(), estimate.at(), took.toMillis(), firstLag.get(task));
				assertThat((double) Math.abs(estimate.eta().toMillis() - took.toMillis()))
					.as("the ETA of the learner of %s (%d ms) against the time it took (%d ms)", task,
							estimate.eta().toMillis(), took.toMillis())
					.isLessThanOrEqualTo(0.25 * took.toMillis());
			}
			assertThat(drainEstimate).as("b's drain as c saw it").containsKey("b");
			DrainEstimate drainOfB = drainEstimate.get("b");
			assertThat(drainOfB.drain().tasks()).containsExactlyInAnyOrderElementsOf(names(ofB));
			assertThat(drainOfB.drain().eta()).as("the drain's ETA: its slowest learner").isPresent();
			Duration drainLeft = Duration.between(drainOfB.at(), drainedAt);
			Duration drainEta = Duration.between(drainOfB.at(), drainOfB.drain().eta().get());
			System.out.printf("Drain of b as c saw it %d ms after the leave: ETA in %d ms, drained in %d ms%n",
					Duration.between(askedAt, drainOfB.at()).toMillis(), drainEta.toMillis(), drainLeft.toMillis());
			assertThat((double) Math.abs(drainEta.toMillis() - drainLeft.toMillis()))
				.as("the drain's ETA against its end, give or take the hand-over's round and close (1 s)")
				.isLessThanOrEqualTo(0.25 * drainLeft.toMillis() + 1_000);

			await("every progress record deleted").atMost(Duration.ofSeconds(30))
				.until(() -> a.runtime().controlView().progressKeys().isEmpty());
			Map<String, List<Integer>> sizes = progressRecords(run.applicationId() + "-rebalance-control");
			Duration drain = Duration.between(askedAt, drainedAt);
			sizes.forEach((key, values) -> {
				System.out.printf("%s: %d records over a drain of %d ms, largest %d bytes%n", key, values.size(),
						drain.toMillis(), values.stream().mapToInt(Integer::intValue).max().orElse(0));
				assertThat((long) values.size() - 1).as("records of %s besides its tombstone", key)
					.isLessThanOrEqualTo(drain.dividedBy(INTERVAL) + 1);
				assertThat(values.get(values.size() - 1)).as("%s ends deleted", key).isZero();
				assertThat(values).as("one small record").allSatisfy((size) -> assertThat(size).isLessThan(400));
			});
			assertThat(sizes).as("only members with learners wrote any").doesNotContainKey(
					ProgressRecord.keyOf("b", b.runtime().identity().incarnation()));
			run.verifyCounts(producer);
		}
	}

	private static Set<String> names(Set<TaskId> tasks) {
		return tasks.stream().map(TaskId::toString).collect(Collectors.toSet());
	}

	/**
	 * Value sizes of every progress record on the control topic, by key, a tombstone as 0.
	 */
	private static Map<String, List<Integer>> progressRecords(String topic) {
		Map<String, List<Integer>> sizes = new HashMap<>();
		try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
				ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), new ByteArrayDeserializer(),
				new ByteArrayDeserializer())) {
			TopicPartition partition = new TopicPartition(topic, 0);
			consumer.assign(List.of(partition));
			consumer.seekToBeginning(List.of(partition));
			long end = consumer.endOffsets(List.of(partition)).get(partition);
			while (consumer.position(partition) < end) {
				for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
					String key = ControlCodec.decodeKey(record.key());
					if (key.startsWith("progress/")) {
						sizes.computeIfAbsent(key, (k) -> new ArrayList<>())
							.add((record.value() != null) ? record.value().length : 0);
					}
				}
			}
		}
		return sizes;
	}

	private static StreamsInstance start(StreamsLauncher launcher, String name) {
		return launcher.instance(name).restoreThrottle(RestoreThrottle.of(RESTORE_RATE)).memberRuntime().start();
	}

	private record Estimate(Instant at, Duration eta) {
	}

	private record DrainEstimate(Instant at, DrainProgress drain) {
	}

}
