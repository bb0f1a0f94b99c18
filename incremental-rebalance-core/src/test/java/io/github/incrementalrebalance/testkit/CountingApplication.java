package io.github.incrementalrebalance.testkit;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import org.apache.kafka.streams.processor.TaskId;

import static org.awaitility.Awaitility.await;

/**
 * One application of a test built on the {@link CountingTopology}: its input and output topics, its marker
 * {@link GapMeter}, a launcher for its instances, and the steps most tests share (load state, then check that the
 * counts are exact).
 */
public final class CountingApplication {

	private final KafkaBroker broker;

	private final String applicationId;

	private final int partitions;

	private final GapMeter gapMeter = new GapMeter();

	private final SlowCalls slowCalls = new SlowCalls();

	/**
	 * Create the application's topics.
	 * @param broker the broker
	 * @param applicationId the application id, also the prefix of its topics
	 * @param partitions partitions of the input (and so stateful tasks)
	 */
	public CountingApplication(KafkaBroker broker, String applicationId, int partitions) {
		this.broker = broker;
		this.applicationId = applicationId;
		this.partitions = partitions;
		broker.createTopics(partitions, input(), output());
	}

	public String applicationId() {
		return this.applicationId;
	}

	public String input() {
		return this.applicationId + "-input";
	}

	public String output() {
		return this.applicationId + "-output";
	}

	public int partitions() {
		return this.partitions;
	}

	public GapMeter gapMeter() {
		return this.gapMeter;
	}

	public SlowCalls slowCalls() {
		return this.slowCalls;
	}

	public TrackingProducer producer() {
		return new TrackingProducer(this.broker.bootstrapServers(), input());
	}

	/**
	 * A producer of the application's input on a secured broker.
	 * @param clientConfig the client settings of the principal that writes the input, bootstrap included
	 * @return the producer
	 */
	public TrackingProducer producer(Map<String, Object> clientConfig) {
		return new TrackingProducer(clientConfig, input());
	}

	/**
	 * A launcher for instances of this application.
	 * @param stateRoot where their state directories go
	 * @return the launcher
	 */
	public StreamsLauncher launcher(Path stateRoot) {
		return new StreamsLauncher(this.broker.bootstrapServers(), this.applicationId, stateRoot,
				(name) -> CountingTopology.build(input(), output(), name, this.gapMeter, this.slowCalls));
	}

	/**
	 * A launcher for instances of this application on a secured broker.
	 * @param stateRoot where their state directories go
	 * @param clientConfig the client settings of the application's principal, bootstrap included
	 * @return the launcher
	 */
	public StreamsLauncher launcher(Path stateRoot, Map<String, Object> clientConfig) {
		StreamsLauncher launcher = launcher(stateRoot);
		clientConfig.forEach(launcher::property);
		return launcher;
	}

	/**
	 * Wait until the instances run every task, give every task state, check it was counted, then start markers.
	 * @param producer the application's producer
	 * @param keysPerTask state records per task
	 * @param instances the running instances
	 */
	public void loadAndSettle(TrackingProducer producer, int keysPerTask, StreamsInstance... instances) {
		loadAndSettle(producer, keysPerTask, TrackingProducer.MARKER_INTERVAL, instances);
	}

	/**
	 * As {@link #loadAndSettle(TrackingProducer, int, StreamsInstance...)}, with markers at another interval.
	 * @param producer the application's producer
	 * @param keysPerTask state records per task
	 * @param markerInterval the pause between two rounds of markers: a stall is measured to within it
	 * @param instances the running instances
	 */
	public void loadAndSettle(TrackingProducer producer, int keysPerTask, Duration markerInterval,
			StreamsInstance... instances) {
		loadAndSettle(producer, keysPerTask, markerInterval,
				() -> StreamsInstance.allRunning(instances) ? StreamsInstance.activeTasksOf(instances) : Set.of());
	}

	/**
	 * As {@link #loadAndSettle(TrackingProducer, int, StreamsInstance...)}, for instances the test kit did not launch
	 * (Spring applications).
	 * @param producer the application's producer
	 * @param keysPerTask state records per task
	 * @param markerInterval the pause between two rounds of markers: a stall is measured to within it
	 * @param activeTasks the tasks the instances run, empty unless every instance is running
	 */
	public void loadAndSettle(TrackingProducer producer, int keysPerTask, Duration markerInterval,
			Supplier<Set<TaskId>> activeTasks) {
		await("instances running every task").atMost(Duration.ofMinutes(1))
			.until(() -> activeTasks.get().size() == this.partitions);
		producer.load(this.partitions, keysPerTask, 1);
		ExactCountVerifier.assertExactCounts(this.broker.bootstrapServers(), output(), producer.acknowledgedCounts(),
				countingTime(keysPerTask));
		producer.startMarkers(this.partitions, markerInterval);
		await("markers flowing").atMost(Duration.ofSeconds(30))
			.until(() -> this.gapMeter.allProcessedSince(activeTasks.get(), Instant.now().minusMillis(300))
					&& activeTasks.get().size() == this.partitions);
	}

	/**
	 * Stop the markers and check that every record sent was counted exactly once.
	 * @param producer the application's producer
	 */
	public void verifyCounts(TrackingProducer producer) {
		producer.stopMarkers();
		Map<String, Long> sent = producer.acknowledgedCounts();
		ExactCountVerifier.assertExactCounts(this.broker.bootstrapServers(), output(), sent,
				countingTime(sent.size() / this.partitions));
	}

	/**
	 * How long counting a load and reading it back may take: minutes for the usual sizes, and more for the millions
	 * of records of a state-size benchmark (counted and read back at 10 000 records a second at least, even on a
	 * shared 2-core machine).
	 */
	private Duration countingTime(int keysPerTask) {
		return Duration.ofMinutes(3).plusSeconds((long) keysPerTask * this.partitions / 10_000);
	}

}
