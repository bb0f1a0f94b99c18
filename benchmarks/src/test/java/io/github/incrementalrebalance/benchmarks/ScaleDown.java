package io.github.incrementalrebalance.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.member.MemberClientSupplier;
import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.GapMeter;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.RestoreThrottle;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.ThrottledRestoreSupplier;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;

import static org.awaitility.Awaitility.await;

/**
 * One scale-down of a group of three instances (a, b, c) under exactly-once while markers flow: b leaves, by a leave
 * request with learners or by closing without them. Measured from the request (or the close) until a and c run every
 * task and b's tasks process again.
 */
final class ScaleDown {

	private ScaleDown() {
	}

	static Result run(KafkaBroker broker, Path stateRoot, Strategy strategy, Settings settings) {
		CountingApplication application = new CountingApplication(broker, "scale-down-" + strategy.id(),
				settings.partitions());
		try (TrackingProducer producer = application.producer();
				StreamsLauncher launcher = launcher(application, stateRoot, strategy, settings)) {
			StreamsInstance a = start(launcher, "a", strategy, settings);
			StreamsInstance b = start(launcher, "b", strategy, settings);
			StreamsInstance c = start(launcher, "c", strategy, settings);
			application.loadAndSettle(producer, settings.keysPerTask(), a, b, c);
			Set<TaskId> moved = b.activeTasks();
			Set<TaskId> unmoved = StreamsInstance.activeTasksOf(a, c);
			Instant from = Instant.now();

			if (strategy.learners()) {
				b.runtime().leave(Optional.empty(), "benchmark");
				await("b drained").atMost(Duration.ofMinutes(10))
					.until(() -> b.runtime().state() == MemberState.CLOSED);
			}
			else {
				b.close();
			}
			await("a and c run every task").atMost(Duration.ofMinutes(10))
				.until(() -> StreamsInstance.allRunning(a, c)
						&& StreamsInstance.activeTasksOf(a, c).size() == settings.partitions()
						&& application.gapMeter().allProcessedSince(moved, Instant.now().minusMillis(300)));
			Instant to = Instant.now();

			GapMeter gaps = application.gapMeter();
			long restored = moved.stream()
				.mapToLong((task) -> a.restoredRecords().restoredInto(task) + c.restoredRecords().restoredInto(task))
				.sum();
			Result result = new Result(strategy, gaps.longestGap(moved, from, to), gaps.longestGap(unmoved, from, to),
					gaps.latencyPercentile(moved, from, to, 99), gaps.latencyPercentile(unmoved, from, to, 99),
					Duration.between(from, to), restored, Math.max(a.rebalancesSince(from), c.rebalancesSince(from)));
			application.verifyCounts(producer);
			return result;
		}
	}

	private static StreamsLauncher launcher(CountingApplication application, Path stateRoot, Strategy strategy,
			Settings settings) {
		StreamsLauncher launcher = application.launcher(stateRoot.resolve(application.applicationId()));
		if (settings.kafkaGroupTimings()) {
			launcher.kafkaDefaultGroupTimings();
		}
		return launcher.property(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2)
			.property(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, settings.acceptableLag())
			.property(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, strategy.standbys())
			.property(LearnerConfig.LEARNER_REBALANCE_TRIGGER_CONFIG,
					(strategy == Strategy.LEARNER_EAGER) ? "eager" : "conservative");
	}

	private static StreamsInstance start(StreamsLauncher launcher, String name, Strategy strategy, Settings settings) {
		RestoreThrottle throttle = (settings.restoreRate() > 0) ? RestoreThrottle.of(settings.restoreRate())
				: RestoreThrottle.unlimited();
		StreamsLauncher.Spec spec = launcher.instance(name);
		if (strategy.learners()) {
			return spec.clientSupplier((supplier) -> new ThrottledRestoreSupplier(supplier, throttle))
				.memberRuntime()
				.start();
		}
		if (strategy == Strategy.KAFKA_DEFAULT) {
			return spec.clientSupplier((supplier) -> new ThrottledRestoreSupplier(supplier, throttle)).start();
		}
		return spec
			.clientSupplier((supplier) -> new MemberClientSupplier(new ThrottledRestoreSupplier(supplier, throttle)))
			.start();
	}

	/**
	 * The size of a run.
	 * @param partitions tasks (one per input partition)
	 * @param keysPerTask records of state per task
	 * @param restoreRate restored records per second per instance (a slower disk); 0 for unlimited
	 * @param acceptableLag {@code acceptable.recovery.lag}
	 * @param kafkaGroupTimings Kafka's heartbeat (3 s) and session timeout (45 s) instead of 500 ms and 6 s
	 */
	record Settings(int partitions, int keysPerTask, long restoreRate, long acceptableLag,
			boolean kafkaGroupTimings) {

		String describe() {
			return String.format("%d tasks, %,d records of state per task, restores %s, acceptable.recovery.lag %d, "
					+ "heartbeat/session %s, exactly-once", this.partitions, this.keysPerTask,
					(this.restoreRate > 0) ? String.format("throttled to %,d records/s", this.restoreRate)
							: "unthrottled",
					this.acceptableLag, this.kafkaGroupTimings ? "3 s/45 s (Kafka's defaults)" : "500 ms/6 s");
		}

	}

	/**
	 * What one run measured.
	 * @param strategy the strategy
	 * @param movedGap longest stall of b's tasks
	 * @param unmovedGap longest stall of a's and c's tasks
	 * @param movedP99 99th percentile latency of b's tasks' markers (send to processing)
	 * @param unmovedP99 the same for a's and c's tasks
	 * @param complete from the request (or close) until every task runs on a and c again
	 * @param restored records restored into b's tasks on their new owners
	 * @param rebalances rebalances a survivor went through
	 */
	record Result(Strategy strategy, Duration movedGap, Duration unmovedGap, Duration movedP99, Duration unmovedP99,
			Duration complete, long restored, long rebalances) {

		String row() {
			return String.format("| %s | %.1f s | %.1f s | %.1f s | %.1f s | %.1f s | %,d | %d |", this.strategy.id(),
					seconds(this.movedGap), seconds(this.unmovedGap), seconds(this.movedP99),
					seconds(this.unmovedP99), seconds(this.complete), this.restored, this.rebalances);
		}

		static String header() {
			return "| strategy | longest stall, moved tasks | longest stall, other tasks | p99 latency, moved | "
					+ "p99 latency, other | until done | records restored at promotion | rebalances |\n"
					+ "|---|---|---|---|---|---|---|---|";
		}

		private static double seconds(Duration duration) {
			return duration.toMillis() / 1000.0;
		}

	}

}
