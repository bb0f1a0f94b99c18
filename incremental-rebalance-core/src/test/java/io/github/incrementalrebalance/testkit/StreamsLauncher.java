package io.github.incrementalrebalance.testkit;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.PlainKafkaClients;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;

/**
 * Starts Kafka Streams instances of one application in this JVM, each with its own state directory, bounded RocksDB
 * memory and fast group timings (heartbeat 500 ms, session 6 s), unless a test overrides them.
 */
public final class StreamsLauncher implements AutoCloseable {

	/** Streams config key carrying the instance's name; Kafka hands unknown keys on to the clients and the assignor. */
	public static final String INSTANCE_NAME_CONFIG = "testkit.instance.name";

	private final String bootstrapServers;

	private final String applicationId;

	private final Path stateRoot;

	private final Function<String, Topology> topologyOf;

	private final Map<String, Object> properties = new LinkedHashMap<>();

	private final List<StreamsInstance> instances = new ArrayList<>();

	/**
	 * @param bootstrapServers the broker
	 * @param applicationId the application (and group) id
	 * @param stateRoot where each instance gets a state directory named after it
	 * @param topologyOf builds the topology of an instance from its name
	 */
	public StreamsLauncher(String bootstrapServers, String applicationId, Path stateRoot,
			Function<String, Topology> topologyOf) {
		this.bootstrapServers = bootstrapServers;
		this.applicationId = applicationId;
		this.stateRoot = stateRoot;
		this.topologyOf = topologyOf;
		this.properties.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
		// Kafka's default under exactly-once, which most tests run: their stalls are those of a default application
		// (at 200 ms the tests took less CPU, and a drain's measured stall grew by a quarter of a second)
		this.properties.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
		this.properties.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
		this.properties.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, BoundedRocksDb.class);
		this.properties.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 500);
		this.properties.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 6000);
	}

	/**
	 * Set a Streams property for every instance started after this call.
	 * @param key the key
	 * @param value the value (objects are passed through to the assignor)
	 * @return this launcher
	 */
	public StreamsLauncher property(String key, Object value) {
		this.properties.put(key, value);
		return this;
	}

	/**
	 * Use Kafka's own group timings (heartbeat 3 s, session 45 s) instead of the fast test ones.
	 * @return this launcher
	 */
	public StreamsLauncher kafkaDefaultGroupTimings() {
		this.properties.remove(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG));
		this.properties.remove(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG));
		return this;
	}

	public String applicationId() {
		return this.applicationId;
	}

	/**
	 * Describe an instance to start.
	 * @param name its name, also the name of its state directory
	 * @return a spec to refine and start
	 */
	public Spec instance(String name) {
		return new Spec(name);
	}

	/**
	 * Start an instance with the launcher's settings.
	 * @param name its name
	 * @return the started instance
	 */
	public StreamsInstance start(String name) {
		return instance(name).start();
	}

	@Override
	public void close() {
		List<Thread> closing = new ArrayList<>();
		for (StreamsInstance instance : this.instances) {
			Thread thread = new Thread(instance::close, "close-" + instance.name());
			thread.start();
			closing.add(thread);
		}
		for (Thread thread : closing) {
			try {
				thread.join(Duration.ofSeconds(60).toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	/**
	 * What to start: threads, extra properties and the client supplier.
	 */
	public final class Spec {

		private final String name;

		private final Map<String, Object> overrides = new HashMap<>();

		private UnaryOperator<KafkaClientSupplier> clientSupplier = UnaryOperator.identity();

		private UnaryOperator<Properties> configurer = UnaryOperator.identity();

		private BiConsumer<KafkaStreams, Topology> onCreated = (streams, topology) -> {
		};

		private boolean memberRuntime;

		private Spec(String name) {
			this.name = name;
		}

		public Spec threads(int threads) {
			return property(StreamsConfig.NUM_STREAM_THREADS_CONFIG, threads);
		}

		/**
		 * Reach the broker through its fault proxy ({@link KafkaBroker#withFaultProxy()}), with the instance's name as
		 * its client id: the proxy tells one instance's clients from another's by that prefix.
		 * @param broker the broker
		 * @return this spec
		 */
		public Spec behindProxyOf(KafkaBroker broker) {
			return property(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, broker.proxiedBootstrapServers())
				.property(StreamsConfig.CLIENT_ID_CONFIG, this.name);
		}

		public Spec property(String key, Object value) {
			this.overrides.put(key, value);
			return this;
		}

		/**
		 * Decorate Kafka's default client supplier, for instance with the member supplier or a throttle.
		 * @param decorator turns the default supplier into the one the instance uses
		 * @return this spec
		 */
		public Spec clientSupplier(UnaryOperator<KafkaClientSupplier> decorator) {
			this.clientSupplier = decorator;
			return this;
		}

		/**
		 * Restore at most as fast as a throttle lets through (a slower disk).
		 * @param throttle the throttle
		 * @return this spec
		 */
		public Spec restoreThrottle(RestoreThrottle throttle) {
			return clientSupplier((supplier) -> new ThrottledRestoreSupplier(supplier, throttle));
		}

		/**
		 * Change the assembled config before Kafka Streams is built, e.g. with a member runtime.
		 * @param configurer the change
		 * @return this spec
		 */
		public Spec configure(UnaryOperator<Properties> configurer) {
			this.configurer = configurer;
			return this;
		}

		/**
		 * Act on the Kafka Streams instance after it is built and before it starts.
		 * @param action the action
		 * @return this spec
		 */
		public Spec onCreated(BiConsumer<KafkaStreams, Topology> action) {
			this.onCreated = action;
			return this;
		}

		/**
		 * Run incremental-rebalance in this instance: a {@link MemberRuntime} configures it, wraps its client supplier
		 * (after the decorator of {@link #clientSupplier}), watches its learners and lets it leave. The instance's
		 * name is its instance id.
		 * @return this spec
		 */
		public Spec memberRuntime() {
			this.memberRuntime = true;
			return property(LearnerConfig.INSTANCE_ID_CONFIG, this.name);
		}

		public StreamsInstance start() {
			Properties config = new Properties();
			config.putAll(StreamsLauncher.this.properties);
			config.put(StreamsConfig.APPLICATION_ID_CONFIG, StreamsLauncher.this.applicationId);
			config.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, StreamsLauncher.this.bootstrapServers);
			config.put(StreamsConfig.STATE_DIR_CONFIG, StreamsLauncher.this.stateRoot.resolve(this.name).toString());
			config.put(INSTANCE_NAME_CONFIG, this.name);
			config.putAll(this.overrides);
			Properties configured = this.configurer.apply(config);
			Topology topology = StreamsLauncher.this.topologyOf.apply(this.name);
			KafkaClientSupplier supplier = this.clientSupplier.apply(new PlainKafkaClients());
			MemberRuntime runtime = null;
			BiConsumer<KafkaStreams, Topology> beforeStart = this.onCreated;
			if (this.memberRuntime) {
				MemberRuntime member = MemberRuntime.create(configured);
				configured = member.configure(configured);
				supplier = member.clientSupplier(supplier);
				beforeStart = beforeStart
					.andThen((streams, built) -> member.attach(streams, built.describe()).start());
				runtime = member;
			}
			StreamsInstance instance = StreamsInstance.start(this.name, topology, configured, supplier, beforeStart,
					runtime);
			StreamsLauncher.this.instances.add(instance);
			return instance;
		}

	}

}
