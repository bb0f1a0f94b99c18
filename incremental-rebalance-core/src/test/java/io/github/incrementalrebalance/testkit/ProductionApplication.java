package io.github.incrementalrebalance.testkit;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.github.incrementalrebalance.config.LearnerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;

import static org.awaitility.Awaitility.await;

/**
 * One application of a test built on the {@link ProductionTopology}: its topics, its marker {@link GapMeter}, a
 * launcher for its instances as production runs them (four stream threads each, exactly-once, Kafka's default
 * heartbeat and session), and the steps its tests share: start a member, load the tables and the state, check what
 * promotions restored, then check both exact outputs.
 */
public final class ProductionApplication {

	/** Stream threads per instance, as production runs them. */
	public static final int THREADS = 4;

	/** Kafka Streams' {@code acceptable.recovery.lag} of its instances: a quarter of an input task's orders. */
	public static final long ACCEPTABLE_LAG = 1_000;

	/** Orders and customers per input partition: every input task holds about five times as many store records. */
	public static final int KEYS_PER_TASK = 4_000;

	/** How long a hand-over may stall a task: the bound the README publishes. */
	public static final Duration STALL_BOUND = Duration.ofSeconds(1);

	private final KafkaBroker broker;

	private final ProductionTopology.Topics topics;

	private final int partitions;

	private final GapMeter gapMeter = new GapMeter();

	/**
	 * Create the application's topics: the input and the customers table co-partitioned, the regions' GlobalKTable on
	 * one partition, and the outputs.
	 * @param broker the broker
	 * @param applicationId the application id, also the prefix of its topics
	 * @param partitions partitions of the input: tasks of each of the two sub-topologies
	 */
	public ProductionApplication(KafkaBroker broker, String applicationId, int partitions) {
		this.broker = broker;
		this.topics = new ProductionTopology.Topics(applicationId);
		this.partitions = partitions;
		broker.createTopics(partitions, this.topics.input(), this.topics.customers(), this.topics.output(),
				this.topics.regionCounts(), this.topics.enriched());
		broker.createTopics(1, this.topics.regions());
	}

	public String applicationId() {
		return this.topics.applicationId();
	}

	public ProductionTopology.Topics topics() {
		return this.topics;
	}

	public GapMeter gapMeter() {
		return this.gapMeter;
	}

	/**
	 * The tasks of the sub-topology that reads the input, each holding most of the state: where markers flow.
	 * @return the tasks {@code 0_0} to {@code 0_<partitions - 1>}
	 */
	public Set<TaskId> inputTasks() {
		return IntStream.range(0, this.partitions).mapToObj((partition) -> new TaskId(0, partition))
			.collect(Collectors.toSet());
	}

	public TrackingProducer producer() {
		return new TrackingProducer(this.broker.bootstrapServers(), this.topics.input());
	}

	/**
	 * A launcher for instances of this application: four threads each, exactly-once, Kafka's default group timings,
	 * the assignor's safety-net probe at 5 minutes so that every move comes from the members' own triggers.
	 * @param stateRoot where their state directories go
	 * @return the launcher
	 */
	public StreamsLauncher launcher(Path stateRoot) {
		return new StreamsLauncher(this.broker.bootstrapServers(), applicationId(), stateRoot.resolve(applicationId()),
				(name) -> ProductionTopology.build(this.topics, name, this.gapMeter))
			.kafkaDefaultGroupTimings()
			.property(StreamsConfig.NUM_STREAM_THREADS_CONFIG, THREADS)
			.property(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2)
			.property(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, ACCEPTABLE_LAG)
			.property(LearnerConfig.LEARNER_PROBE_INTERVAL_MS_CONFIG, Duration.ofMinutes(5).toMillis());
	}

	/**
	 * Start an instance with a member runtime, its queries routed by {@link MarkerQueries#applicationServer}.
	 * @param launcher the application's launcher
	 * @param name the instance's name and instance id
	 * @param restoreRate how many records a second it restores (a slower disk)
	 * @return the instance
	 */
	public static StreamsInstance member(StreamsLauncher launcher, String name, long restoreRate) {
		return launcher.instance(name)
			.property(StreamsConfig.APPLICATION_SERVER_CONFIG, MarkerQueries.applicationServer(name))
			.restoreThrottle(RestoreThrottle.of(restoreRate))
			.memberRuntime()
			.start();
	}

	/**
	 * The records restored into active tasks, per task, on every instance given: a promotion of a warm learner restores
	 * at most the acceptable lag, a cold move the whole state.
	 * @param instances the instances
	 * @return the records restored per task, summed over the instances
	 */
	public static Map<TaskId, Long> restoredAtPromotion(Collection<StreamsInstance> instances) {
		Map<TaskId, Long> restored = new TreeMap<>();
		instances.forEach((instance) -> instance.restoredRecords().restoredByTask()
			.forEach((task, records) -> restored.merge(task, records, Long::sum)));
		return restored;
	}

	/**
	 * Wait until the instances run every task, fill the tables, give every input task state, check it was counted,
	 * then start markers.
	 * @param producer the application's producer
	 * @param keysPerTask orders (and customers) per input partition
	 * @param instances the running instances
	 */
	public void loadAndSettle(TrackingProducer producer, int keysPerTask, StreamsInstance... instances) {
		await("instances running every task").atMost(Duration.ofMinutes(1))
			.until(() -> StreamsInstance.allRunning(instances)
					&& StreamsInstance.activeTasksOf(instances).containsAll(inputTasks()));
		try (TrackingProducer regions = new TrackingProducer(this.broker.bootstrapServers(), this.topics.regions());
				TrackingProducer customers = new TrackingProducer(this.broker.bootstrapServers(),
						this.topics.customers())) {
			for (int region = 0; region < ProductionTopology.REGIONS; region++) {
				regions.send(0, "region-" + region, "region " + region);
			}
			regions.flush();
			customers.load(this.partitions, keysPerTask, 1);
		}
		producer.load(this.partitions, keysPerTask, 1);
		verifyOutputs(producer.acknowledgedCounts(), keysPerTask);
		producer.startMarkers(this.partitions, TrackingProducer.MARKER_INTERVAL);
		await("markers flowing").atMost(Duration.ofSeconds(30))
			.until(() -> StreamsInstance.allRunning(instances)
					&& this.gapMeter.allProcessedSince(inputTasks(), Instant.now().minusMillis(300)));
	}

	/**
	 * Stop the markers and check that every record sent was counted exactly once, per key and per region.
	 * @param producer the application's producer
	 */
	public void verifyCounts(TrackingProducer producer) {
		producer.stopMarkers();
		Map<String, Long> sent = producer.acknowledgedCounts();
		verifyOutputs(sent, sent.size() / this.partitions);
	}

	private void verifyOutputs(Map<String, Long> sent, int keysPerTask) {
		Duration counting = Duration.ofMinutes(3).plusSeconds((long) keysPerTask * this.partitions / 5_000);
		ExactCountVerifier.assertExactCounts(this.broker.bootstrapServers(), this.topics.output(), sent, counting);
		Map<String, Long> perRegion = new TreeMap<>();
		sent.forEach((key, count) -> perRegion.merge(ProductionTopology.regionOf(key), count, Long::sum));
		ExactCountVerifier.assertExactCounts(this.broker.bootstrapServers(), this.topics.regionCounts(), perRegion,
				counting);
	}

}
