package io.github.incrementalrebalance.testkit;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Produces the input of a test and remembers how many records of each key the broker acknowledged, for the
 * {@link ExactCountVerifier}. Besides bulk state it can send a steady stream of marker records, one to every
 * partition per interval, that the topology reports to the {@link GapMeter}.
 */
public final class TrackingProducer implements AutoCloseable {

	/**
	 * The tests' pause between two rounds of markers: a task's stall is measured to within it. Each round is a
	 * produce request, and the instances' transactions carry it, so the rate is much of the groups' load on the
	 * build's two cores; a tenth of a second is well within the stalls the tests bound (half a second and more).
	 */
	public static final Duration MARKER_INTERVAL = Duration.ofMillis(100);

	private static final String MARKER_PREFIX = "marker-";

	private final KafkaProducer<String, String> producer;

	private final String topic;

	private final Map<String, AtomicLong> acknowledged = new ConcurrentHashMap<>();

	private final List<Exception> failures = new CopyOnWriteArrayList<>();

	private volatile Thread markers;

	private volatile Thread updates;

	public TrackingProducer(String bootstrapServers, String topic) {
		this(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers), topic);
	}

	/**
	 * @param clientConfig how to reach the broker: bootstrap, and security on a secured one
	 * @param topic the input topic
	 */
	public TrackingProducer(Map<String, Object> clientConfig, String topic) {
		this.topic = topic;
		Map<String, Object> config = new HashMap<>(clientConfig);
		config.putAll(Map.of(ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
				ProducerConfig.LINGER_MS_CONFIG, 5, ProducerConfig.BATCH_SIZE_CONFIG, 64 * 1024));
		this.producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
	}

	/**
	 * Whether a key is a marker's.
	 * @param key the record key
	 * @return true for markers
	 */
	public static boolean isMarker(String key) {
		return key != null && key.startsWith(MARKER_PREFIX);
	}

	public void send(int partition, String key, String value) {
		this.producer.send(new ProducerRecord<>(this.topic, partition, key, value), (metadata, exception) -> {
			if (exception != null) {
				this.failures.add(exception);
			}
			else {
				this.acknowledged.computeIfAbsent(key, (k) -> new AtomicLong()).incrementAndGet();
			}
		});
	}

	/**
	 * Build state: every partition gets its own keys, each updated several times.
	 * @param partitions the partitions of the input topic
	 * @param keysPerPartition distinct keys per partition (= state records per task)
	 * @param updatesPerKey records per key
	 */
	public void load(int partitions, int keysPerPartition, int updatesPerKey) {
		for (int update = 0; update < updatesPerKey; update++) {
			for (int partition = 0; partition < partitions; partition++) {
				for (int key = 0; key < keysPerPartition; key++) {
					send(partition, "k" + partition + "-" + key, "v" + update);
				}
			}
		}
		flush();
	}

	/**
	 * Start sending one marker to each partition every interval, until {@link #stopMarkers()}.
	 * @param partitions the partitions of the input topic
	 * @param interval the pause between two rounds of markers
	 */
	public void startMarkers(int partitions, Duration interval) {
		this.markers = inBackground("markers-" + this.topic, () -> {
			for (int partition = 0; partition < partitions; partition++) {
				send(partition, MARKER_PREFIX + partition, Long.toString(System.currentTimeMillis()));
			}
			this.producer.flush();
		}, interval);
	}

	public void stopMarkers() {
		stop(this.markers);
		this.markers = null;
		flush();
	}

	/**
	 * Start updating random keys of {@link #load} at a steady rate, besides the markers, until {@link #stopUpdates()}.
	 * @param partitions the partitions of the input topic
	 * @param keysPerPartition the keys per partition to choose from
	 * @param perSecond updates per second
	 * @param seed the seed of the keys chosen
	 */
	public void startUpdates(int partitions, int keysPerPartition, int perSecond, long seed) {
		Random keys = new Random(seed);
		this.updates = inBackground("updates-" + this.topic, () -> {
			int partition = keys.nextInt(partitions);
			send(partition, "k" + partition + "-" + keys.nextInt(keysPerPartition), "u");
		}, Duration.ofNanos(1_000_000_000L / perSecond));
	}

	public void stopUpdates() {
		stop(this.updates);
		this.updates = null;
		flush();
	}

	private static Thread inBackground(String name, Runnable round, Duration pause) {
		Thread thread = new Thread(() -> {
			while (!Thread.currentThread().isInterrupted()) {
				round.run();
				LockSupport.parkNanos(pause.toNanos());
			}
		}, name);
		thread.setDaemon(true);
		thread.start();
		return thread;
	}

	private static void stop(Thread thread) {
		if (thread == null) {
			return;
		}
		thread.interrupt();
		try {
			thread.join(10_000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	public void flush() {
		this.producer.flush();
	}

	/**
	 * What the broker acknowledged, per key; fails when any send failed, since the counts would then be unknown.
	 * @return records per key
	 */
	public Map<String, Long> acknowledgedCounts() {
		if (!this.failures.isEmpty()) {
			throw new IllegalStateException(this.failures.size() + " sends failed, first: " + this.failures.get(0),
					this.failures.get(0));
		}
		Map<String, Long> counts = new ConcurrentHashMap<>();
		this.acknowledged.forEach((key, count) -> counts.put(key, count.get()));
		return counts;
	}

	@Override
	public void close() {
		stopUpdates();
		stopMarkers();
		this.producer.close(Duration.ofSeconds(10));
	}

}
