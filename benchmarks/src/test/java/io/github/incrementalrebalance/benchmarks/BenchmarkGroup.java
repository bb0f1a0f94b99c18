package io.github.incrementalrebalance.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.member.MemberClientSupplier;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.CountingTopology;
import io.github.incrementalrebalance.testkit.GapMeter;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.RestoreThrottle;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.ThrottledRestoreSupplier;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.streams.LagInfo;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.awaitility.core.ConditionTimeoutException;

import static org.awaitility.Awaitility.await;

/**
 * The group of one availability run: the counting application with its producer, and its instances configured for a
 * strategy (exactly-once, the run's restore throttle and group timings; learners with their member runtime, Kafka's
 * assignor with or without a real leave-group).
 */
final class BenchmarkGroup implements AutoCloseable {

	/** Kafka's lowest {@code probing.rebalance.interval.ms}: its warm-ups move tasks as soon as it allows. */
	private static final Duration KAFKA_FASTEST_PROBE = Duration.ofMinutes(1);

	/** The pause between two rounds of markers: the benchmarks' stalls are measured to within it. */
	private static final Duration MARKER_INTERVAL = Duration.ofMillis(50);

	private static final String STREAMS_OVERRIDE = "benchmark.streams.";

	private final CountingApplication application;

	private final Strategy strategy;

	private final Settings settings;

	private final TrackingProducer producer;

	private final StreamsLauncher launcher;

	BenchmarkGroup(KafkaBroker broker, Path stateRoot, String scenario, Strategy strategy, Settings settings) {
		this.application = new CountingApplication(broker, scenario + "-" + strategy.id(), settings.partitions());
		if (strategy.isStreamsProtocol()) {
			streamsGroupConfig(broker, this.application.applicationId(), strategy, settings);
		}
		this.strategy = strategy;
		this.settings = settings;
		this.producer = this.application.producer();
		this.launcher = launcher(this.application, stateRoot, strategy, settings);
	}

	Strategy strategy() {
		return this.strategy;
	}

	Settings settings() {
		return this.settings;
	}

	GapMeter gapMeter() {
		return this.application.gapMeter();
	}

	CountingApplication application() {
		return this.application;
	}

	TrackingProducer producer() {
		return this.producer;
	}

	/**
	 * A Kafka Streams setting for every instance started from now on.
	 * @param key the setting
	 * @param value its value
	 * @return this group
	 */
	BenchmarkGroup property(String key, Object value) {
		this.launcher.property(key, value);
		return this;
	}

	StreamsInstance start(String name) {
		return start(this.launcher, name, this.strategy, this.settings);
	}

	/**
	 * Start the instances, give every task its state, and start the markers.
	 * @param names the instances' names
	 * @return the instances, in the order of their names
	 */
	List<StreamsInstance> startLoaded(String... names) {
		List<StreamsInstance> instances = Arrays.stream(names).map(this::start).toList();
		loadAndSettle(instances.toArray(StreamsInstance[]::new));
		return instances;
	}

	/**
	 * Give every task its state, and start the markers.
	 * @param instances the instances running every task
	 */
	void loadAndSettle(StreamsInstance... instances) {
		// as the published results were measured: twice as fine as the build's tests
		this.application.loadAndSettle(this.producer, this.settings.keysPerTask(), MARKER_INTERVAL, instances);
	}

	/**
	 * A standby is a fair baseline only once it has caught up: right after the load it is still restoring, and a
	 * change then promotes it half cold. Waits until each task has a standby on one of the holders within the
	 * acceptable lag, as Kafka's own assignor counts a warm-up caught up.
	 * @param tasks the tasks that will move
	 * @param holders the instances that will take them
	 * @return the largest lag of those standbys when they were
	 */
	long awaitStandbysCaughtUp(Set<TaskId> tasks, StreamsInstance... holders) {
		AtomicLong largest = new AtomicLong();
		await("standbys of the tasks that move caught up").atMost(Duration.ofMinutes(10))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> {
				largest.set(tasks.stream().mapToLong((task) -> lagOn(task, holders)).max().orElse(0));
				return largest.get() <= this.settings.acceptableLag();
			});
		return largest.get();
	}

	/**
	 * Where Kafka, not the scenario, decides which instances hold a standby, a fair baseline waits for what Kafka's
	 * assignor does on its own and says what it left: waits until each task has a copy of its state (an active or a
	 * standby) within the acceptable lag on one of the holders, or until {@code atMost} passed.
	 * @param tasks the tasks that will move
	 * @param atMost how long Kafka is given to place and catch up its standbys
	 * @param holders the instances that will take them
	 * @return the tasks with such a copy on a holder when the wait ended
	 */
	Set<TaskId> awaitWarmCopies(Set<TaskId> tasks, Duration atMost, StreamsInstance... holders) {
		AtomicReference<Set<TaskId>> warm = new AtomicReference<>(Set.of());
		try {
			await("a warm copy of every task on " + Arrays.stream(holders).map(StreamsInstance::name).toList())
				.atMost(atMost)
				.pollInterval(Duration.ofMillis(200))
				.until(() -> {
					warm.set(tasks.stream()
						.filter((task) -> lagOn(task, holders) <= this.settings.acceptableLag())
						.collect(Collectors.toUnmodifiableSet()));
					return warm.get().size() == tasks.size();
				});
		}
		catch (ConditionTimeoutException ex) {
			// what Kafka left is the result: the caller reports the tasks without a warm copy
		}
		return warm.get();
	}

	/** The smallest lag of a task's store on some instances, {@code Long.MAX_VALUE} where none holds it. */
	private static long lagOn(TaskId task, StreamsInstance... holders) {
		long lag = Long.MAX_VALUE;
		for (StreamsInstance holder : holders) {
			LagInfo info = holder.kafkaStreams().allLocalStorePartitionLags()
				.getOrDefault(CountingTopology.STORE, Map.of())
				.get(task.partition());
			lag = (info != null) ? Math.min(lag, info.offsetLag()) : lag;
		}
		return lag;
	}

	/**
	 * Measure the window of the change, then check that every record was counted exactly once.
	 * @param moved the tasks that moved
	 * @param unmoved the others
	 * @param timeline the change's steps, from its start
	 * @param to when it was done
	 * @param restored records restored into the moved tasks at their promotion
	 * @param rebalances rebalances an instance that stayed went through
	 * @return the result
	 */
	AvailabilityResult measure(Set<TaskId> moved, Set<TaskId> unmoved, Timeline timeline, Instant to, long restored,
			long rebalances) {
		GapMeter gaps = gapMeter();
		Instant from = timeline.start();
		AvailabilityResult result = new AvailabilityResult(this.strategy, gaps.longestGap(moved, from, to),
				gaps.longestGap(unmoved, from, to), gaps.latencyPercentile(moved, from, to, 99),
				gaps.latencyPercentile(unmoved, from, to, 99), Duration.between(from, to), restored, rebalances,
				moved.size(), timeline.steps());
		this.application.verifyCounts(this.producer);
		return result;
	}

	@Override
	public void close() {
		this.launcher.close();
		this.producer.close();
	}

	private static StreamsLauncher launcher(CountingApplication application, Path stateRoot, Strategy strategy,
			Settings settings) {
		StreamsLauncher launcher = application.launcher(stateRoot.resolve(application.applicationId()));
		if (settings.kafkaGroupTimings()) {
			launcher.kafkaDefaultGroupTimings();
		}
		launcher.property(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2)
			.property(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, settings.acceptableLag());
		streamsOverrides().forEach(launcher::property);
		if (strategy.isStreamsProtocol()) {
			// standbys and heartbeats are the group's configs there (streamsGroupConfig), the rest is the broker's
			return launcher.property(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
		}
		return launcher.property(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, strategy.standbys())
			.property(StreamsConfig.PROBING_REBALANCE_INTERVAL_MS_CONFIG, KAFKA_FASTEST_PROBE.toMillis())
			.property(LearnerConfig.BALANCING_FACTOR_CONFIG, settings.balancingFactor())
			.property(LearnerConfig.DRAIN_HAND_OVER_CONFIG,
					(strategy == Strategy.LEARNER_EAGER) ? "eager" : "conservative");
	}

	private static StreamsInstance start(StreamsLauncher launcher, String name, Strategy strategy,
			Settings settings) {
		RestoreThrottle throttle = (settings.restoreRate() > 0) ? RestoreThrottle.of(settings.restoreRate())
				: RestoreThrottle.unlimited();
		StreamsLauncher.Spec spec = launcher.instance(name);
		if (strategy.learners()) {
			return spec.restoreThrottle(throttle)
				.memberRuntime()
				.start();
		}
		if (strategy == Strategy.KAFKA_DEFAULT || strategy.isStreamsProtocol()) {
			return spec.restoreThrottle(throttle).start();
		}
		return spec
			.clientSupplier((supplier) -> new MemberClientSupplier(new ThrottledRestoreSupplier(supplier, throttle)))
			.start();
	}

	/**
	 * Under the streams protocol the group's standbys and timings are group configs on the broker, set before the
	 * group's first member joins: Kafka's defaults for streams groups (heartbeat 5 s, session 45 s) or the test's
	 * (1 s, 6 s).
	 */
	private static void streamsGroupConfig(KafkaBroker broker, String groupId, Strategy strategy, Settings settings) {
		Map<String, String> configs = Map.of("streams.num.standby.replicas", String.valueOf(strategy.standbys()),
				"streams.heartbeat.interval.ms", settings.kafkaGroupTimings() ? "5000" : "1000",
				"streams.session.timeout.ms", settings.kafkaGroupTimings() ? "45000" : "6000");
		broker.configureGroup(groupId, configs);
	}

	/**
	 * Kafka Streams settings a run puts on every instance of every strategy, for an experiment side by side:
	 * {@code -Dbenchmark.streams.poll.ms=100} sets {@code poll.ms}.
	 * @return the settings, by key
	 */
	static Map<String, String> streamsOverrides() {
		Map<String, String> overrides = new TreeMap<>();
		System.getProperties()
			.stringPropertyNames()
			.stream()
			.filter((name) -> name.startsWith(STREAMS_OVERRIDE))
			.forEach((name) -> overrides.put(name.substring(STREAMS_OVERRIDE.length()), System.getProperty(name)));
		return overrides;
	}

	/**
	 * The size of a run.
	 * @param partitions tasks (one per input partition)
	 * @param keysPerTask records of state per task
	 * @param restoreRate restored records per second per instance (a slower disk); 0 for unlimited
	 * @param acceptableLag {@code acceptable.recovery.lag}
	 * @param kafkaGroupTimings Kafka's heartbeat (3 s) and session timeout (45 s) instead of 500 ms and 6 s
	 * @param balancingFactor the learner assignor's {@code incremental.rebalance.balancing.factor}
	 */
	record Settings(int partitions, int keysPerTask, long restoreRate, long acceptableLag, boolean kafkaGroupTimings,
			double balancingFactor) {

		Settings(int partitions, int keysPerTask, long restoreRate, long acceptableLag, boolean kafkaGroupTimings) {
			this(partitions, keysPerTask, restoreRate, acceptableLag, kafkaGroupTimings, 2.0);
		}

		static Settings fromSystemProperties() {
			return fromSystemProperties(10_000);
		}

		static Settings fromSystemProperties(long defaultRestoreRate) {
			return new Settings(6, Integer.getInteger("benchmark.keys-per-task", 100_000),
					Long.getLong("benchmark.restore-rate", defaultRestoreRate), 1_000,
					!"test".equals(System.getProperty("benchmark.group-timings")));
		}

		Settings withKeysPerTask(int keys) {
			return new Settings(this.partitions, keys, this.restoreRate, this.acceptableLag, this.kafkaGroupTimings,
					this.balancingFactor);
		}

		Settings withPartitions(int tasks) {
			return new Settings(tasks, this.keysPerTask, this.restoreRate, this.acceptableLag, this.kafkaGroupTimings,
					this.balancingFactor);
		}

		Settings withBalancingFactor(double factor) {
			return new Settings(this.partitions, this.keysPerTask, this.restoreRate, this.acceptableLag,
					this.kafkaGroupTimings, factor);
		}

		/**
		 * Names the group timings in file names: {@code kafka} (3 s / 45 s) or {@code test} (500 ms / 6 s).
		 * @return the name
		 */
		String timings() {
			return this.kafkaGroupTimings ? "kafka" : "test";
		}

		String describe() {
			Map<String, String> overrides = streamsOverrides();
			return String.format("%d tasks, %,d records of state per task, restores %s, acceptable.recovery.lag %d, "
					+ "heartbeat/session %s, exactly-once", this.partitions, this.keysPerTask,
					(this.restoreRate > 0) ? String.format("throttled to %,d records/s", this.restoreRate)
							: "unthrottled",
					this.acceptableLag, this.kafkaGroupTimings ? "3 s/45 s (Kafka's defaults)" : "500 ms/6 s")
					+ (overrides.isEmpty() ? "" : ", with " + overrides);
		}

	}

}
