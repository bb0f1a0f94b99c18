package io.github.incrementalrebalance.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import io.github.incrementalrebalance.testkit.ExactCountVerifier;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.SampleProcess;
import io.github.incrementalrebalance.testkit.MarkerWatcher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.util.FileSystemUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Deployment's rolling update of the sample application's jar, as real processes: three instances replaced one by
 * one as {@code maxSurge: 1, maxUnavailable: 0} does it. A new process starts; once it reports ready, the oldest gets
 * a SIGTERM; the next new process starts once that one is gone. Three runs side by side, each on a broker of its own:
 * the sample as shipped (learners, a drain on shutdown, readiness that means warm); Kafka alone with a real
 * leave-group (mode {@code upgrading}: Kafka's assignor, readiness at start); and that with a standby per task. A
 * fourth run is the sample as shipped with the grace it ships with, a drain bound of 15 s: too short for this state.
 * <p>
 * Each task holds 50 000 keys counted twice ({@code -Drollout.keys-per-task}), and every instance reads changelogs at
 * 4 000 records a second ({@code -Drollout.restore-rate}, the sample's {@code sample.restore-rate}), so an instance's
 * share takes longer to learn than 15 s, as gigabytes of state do in production. The sized runs' shutdown phase is
 * 90 s, so that a drain on shutdown may take 85 s. The processes' logs stay in
 * {@code sample-app/target/rollout/<run>/}.
 * On demand: {@code mvn -B -pl sample-app -am verify -Dit.test=RolloutIT -Dtest=none
 * -Dsurefire.failIfNoSpecifiedTests=false} (about 13 minutes here); the build runs the SIGTERM test of
 * {@link ShutdownSignalIT} instead.
 */
@Tag(TestTags.BROKER)
class RolloutIT {

	/** State per task, each key counted twice. */
	private static final int KEYS_PER_TASK = Integer.getInteger("rollout.keys-per-task", 50_000);

	/** Records a second each instance reads from changelogs, for restores and learners alike. */
	private static final int RESTORE_RATE = Integer.getInteger("rollout.restore-rate", 4_000);

	/**
	 * How long a task may take to run again after a move: a cold restore of every task through one instance's restore
	 * consumer, and a minute for the rebalances.
	 */
	private static final Duration RESTORE_BOUND = Duration
		.ofSeconds(PageViews.PARTITIONS * 2L * KEYS_PER_TASK / RESTORE_RATE)
		.plusMinutes(1);

	/** The drain bound the sample ships with (no drain timeout: 15 s on shutdown). */
	private static final Duration SHIPPED_DRAIN_BOUND = Duration.ofSeconds(15);

	/** Room for the learners of an instance's share: a drain on shutdown may take 85 s. */
	private static final String SIZED_DRAIN = "--incremental-rebalance.drain.timeout=85s";

	/** Learners are ready within this lag: what a moved task may restore at most at promotion. */
	private static final int ACCEPTABLE_LAG = 100;

	private static final int INSTANCES = 3;

	/** Where each run's processes keep their state and logs, kept after the run. */
	private final Path work = Path.of("target", "rollout");

	@Test
	void aRollingUpdateKeepsEveryTaskWarmWithLearnersWhereKafkaAloneRestoresAtPromotion() throws Exception {
		List<Result> results = new ArrayList<>();
		results.add(rollout("learners", List.of(SIZED_DRAIN)));
		results.add(rollout("learners-15s-drain", List.of()));
		results.add(rollout("kafka-leave-group", List.of(SIZED_DRAIN, "--incremental-rebalance.mode=upgrading",
				"--incremental-rebalance.readiness.warm=false")));
		results.add(rollout("kafka-standby", List.of(SIZED_DRAIN, "--incremental-rebalance.mode=upgrading",
				"--incremental-rebalance.readiness.warm=false",
				"--spring.kafka.streams.properties.num.standby.replicas=1")));

		System.out.printf("Rolling update of %d instances, %,d keys per task counted twice, restores at %,d records/s%n",
				INSTANCES, KEYS_PER_TASK, RESTORE_RATE);
		System.out.println("| run | longest stall of any task | records restored at promotion | drains forced "
				+ "| longest SIGTERM to exit | rollout |");
		System.out.println("|---|---|---|---|---|---|");
		results.forEach((result) -> System.out.println(result.row()));
		Result learners = results.get(0);
		Result shipped = results.get(1);
		Result leaveGroup = results.get(2);
		assertThat(learners.longestShutdown()).as("an instance's share takes longer to learn than the shipped bound")
			.isGreaterThan(SHIPPED_DRAIN_BOUND);
		assertThat(learners.forced()).as("no drain of the learner run was forced").isZero();
		assertThat(learners.restored()).as("no task of the learner run restored its state at promotion")
			.isLessThan(KEYS_PER_TASK);
		assertThat(shipped.forced()).as("a 15 s drain bound forces drains of this state").isPositive();
		assertThat(shipped.restored()).as("whose tasks then restore cold at promotion")
			.isGreaterThanOrEqualTo(KEYS_PER_TASK);
		assertThat(leaveGroup.restored()).as("Kafka alone restores tasks cold at promotion")
			.isGreaterThanOrEqualTo(KEYS_PER_TASK);
		assertThat(leaveGroup.longestStall()).as("and stalls them meanwhile").isGreaterThan(learners.longestStall());
	}

	private Result rollout(String run, List<String> arguments) throws Exception {
		Path work = this.work.resolve(run).toAbsolutePath();
		// the previous run's state and logs go: each run starts with empty state directories
		FileSystemUtils.deleteRecursively(work);
		Files.createDirectories(work);
		List<SampleProcess> old = new ArrayList<>();
		List<SampleProcess> all = new ArrayList<>();
		try (KafkaBroker broker = new KafkaBroker().start();
				TrackingProducer producer = new TrackingProducer(broker.bootstrapServers(), PageViews.INPUT)) {
			broker.createTopics(PageViews.PARTITIONS, PageViews.INPUT, PageViews.OUTPUT);
			for (int i = 1; i <= INSTANCES; i++) {
				old.add(launch(broker, work, "old-" + i, arguments));
			}
			all.addAll(old);
			await(run + ": three processes share the six tasks").atMost(Duration.ofMinutes(3))
				.until(() -> old.stream().allMatch((member) -> member.active() > 0)
						&& old.stream().mapToInt(SampleProcess::active).sum() == PageViews.PARTITIONS);
			producer.load(PageViews.PARTITIONS, KEYS_PER_TASK, 2);
			ExactCountVerifier.assertExactCounts(broker.bootstrapServers(), PageViews.OUTPUT,
					producer.acknowledgedCounts(), Duration.ofMinutes(3));
			// standbys restore at the same rate as learners: the rollout starts with every standby caught up
			await(run + ": the group settled, nothing learning, standbys caught up").atMost(Duration.ofMinutes(5))
				.until(() -> old.stream()
					.noneMatch((member) -> member.rebalance().contains("LEARNING")
							|| member.standbyLag() > ACCEPTABLE_LAG));
			boolean standbys = arguments.stream()
				.anyMatch((argument) -> argument.contains(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG));
			assertThat(old).as("every instance keeps standbys where the run has them")
				.allMatch((member) -> member.hasStandbys() == standbys);
			producer.startMarkers(PageViews.PARTITIONS, Duration.ofMillis(100));
			try (MarkerWatcher markers = new MarkerWatcher(broker, PageViews.OUTPUT)) {
				markers.awaitEveryTaskSince(System.currentTimeMillis(), RESTORE_BOUND);
				List<Long> marks = new ArrayList<>();
				for (SampleProcess member : old) {
					marks.add(member.logSize());
				}
				long started = System.currentTimeMillis();
				int forced = 0;
				Duration longestShutdown = Duration.ZERO;
				for (int i = 1; i <= INSTANCES; i++) {
					SampleProcess added = launch(broker, work, "new-" + i, arguments);
					all.add(added);
					marks.add(0L);
					await(run + ": new-" + i + " ready").atMost(Duration.ofMinutes(10)).until(added::ready);
					SampleProcess stopped = old.get(i - 1);
					long mark = stopped.logSize();
					long stopping = System.nanoTime();
					stopped.process().destroy();
					assertThat(stopped.process().waitFor(2, TimeUnit.MINUTES)).as("%s exits", stopped.name()).isTrue();
					Duration shutdown = Duration.ofNanos(System.nanoTime() - stopping);
					longestShutdown = (shutdown.compareTo(longestShutdown) > 0) ? shutdown : longestShutdown;
					forced += stopped.logSince(mark).contains("is closed (forced)") ? 1 : 0;
				}
				markers.awaitEveryTaskSince(System.currentTimeMillis(), RESTORE_BOUND);
				Duration took = Duration.ofMillis(System.currentTimeMillis() - started);
				Duration stall = markers.longestGapSince(started);
				long restored = 0;
				for (int i = 0; i < all.size(); i++) {
					restored += all.get(i).restoredSince(marks.get(i));
				}
				producer.stopMarkers();
				ExactCountVerifier.assertExactCounts(broker.bootstrapServers(), PageViews.OUTPUT,
						producer.acknowledgedCounts(), Duration.ofMinutes(3));
				return new Result(run, stall, restored, forced, longestShutdown, took);
			}
		}
		finally {
			all.forEach((member) -> member.process().destroyForcibly());
		}
	}

	private static SampleProcess launch(KafkaBroker broker, Path work, String name, List<String> arguments)
			throws IOException {
		List<String> all = new ArrayList<>(List.of(
				"--spring.kafka.streams.properties.consumer.heartbeat.interval.ms=1000",
				"--spring.kafka.streams.properties.consumer.session.timeout.ms=10000",
				"--spring.kafka.streams.properties.acceptable.recovery.lag=" + ACCEPTABLE_LAG,
				"--sample.restore-rate=" + RESTORE_RATE));
		all.addAll(arguments);
		return SampleProcess.launch(broker, work, name, all);
	}

	/**
	 * One run's figures.
	 * @param run what ran
	 * @param longestStall the longest pause of any task's markers during the rollout
	 * @param restored records restored into active tasks at promotion during the rollout, every process together
	 * @param forced drains on shutdown that ended forced
	 * @param longestShutdown the longest time an old process took from its SIGTERM to its exit
	 * @param took from the first new process's start until every task ran again after the last old one left
	 */
	private record Result(String run, Duration longestStall, long restored, int forced, Duration longestShutdown,
			Duration took) {

		String row() {
			return String.format(Locale.ROOT, "| %s | %.1f s | %,d | %d of %d | %.1f s | %.0f s |", this.run,
					this.longestStall.toMillis() / 1000.0, this.restored, this.forced, INSTANCES,
					this.longestShutdown.toMillis() / 1000.0, this.took.toMillis() / 1000.0);
		}

	}

}
