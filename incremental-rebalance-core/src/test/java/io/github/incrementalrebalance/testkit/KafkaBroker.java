package io.github.incrementalrebalance.testkit;

import java.net.BindException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;

import io.github.incrementalrebalance.member.ClientCapabilities;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import kafka.server.BrokerServer;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.apache.kafka.common.test.JaasUtils;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

import static org.awaitility.Awaitility.await;

/**
 * One in-process KRaft broker, set up for exactly-once on a single node. A test class whose groups and topics are its
 * own shares the broker of its JVM, started by the first class that asks for it and gone with the JVM:
 * {@code @RegisterExtension static final KafkaBroker broker = KafkaBroker.shared();}. A class that needs a broker of
 * its own (racks, a broker it stops, settings of its own) registers {@code new KafkaBroker()}, started before its
 * tests and stopped after them. Either way the class is tagged {@code @Tag(TestTags.BROKER)}.
 * <p>
 * It runs on Kafka's own test kit ({@code kafka-test-common-runtime}), whose builder, start-up and bootstrap calls are
 * the same from Kafka 4.1 to 4.3, so the core's tests run on every supported stack (spring-kafka-test's embedded
 * broker cannot drive Kafka 4.3's test kit).
 */
public final class KafkaBroker implements BeforeAllCallback, AfterAllCallback, AutoCloseable {

	private static final Map<String, String> BROKER_CONFIG = Map.of("transaction.state.log.replication.factor", "1",
			"transaction.state.log.min.isr", "1", "offsets.topic.replication.factor", "1",
			"group.initial.rebalance.delay.ms", "0", "delete.topic.enable", "true",
			// as on most production clusters: a topic exists only when someone created it (a client's metadata request
			// would otherwise bring a deleted control topic back with the broker's defaults)
			"auto.create.topics.enable", "false");

	private static final short REPLICAS = 3;

	private static final Map<String, String> REPLICATED_CONFIG = Map.of("default.replication.factor", "3",
			"min.insync.replicas", "2", "offsets.topic.replication.factor", "3",
			"transaction.state.log.replication.factor", "3", "transaction.state.log.min.isr", "2");

	private static KafkaBroker shared;

	/** The ordinary principal of a secured broker, as Kafka's test kit defines it: allowed only what ACLs grant. */
	public static final String USER = JaasUtils.KAFKA_PLAIN_USER1;

	private final List<String> racks;

	/** Brokers that replicate every topic three times, beside a controller of their own. */
	private final boolean replicated;

	/** Whether this is the JVM's shared broker, which outlives each test class that uses it. */
	private final boolean jvmWide;

	private final SecurityProtocol protocol;

	/** Whether clients that bootstrap through {@link #proxy()} stay on it: a listener advertised at the proxy. */
	private final boolean proxied;

	private FaultProxy proxy;

	/** The stores of a broker with mutual TLS, made at its start. */
	private TestCertificates certificates;

	private KafkaClusterTestKit cluster;

	private Admin admin;

	/** Broker settings beside the test kit's own, set by the factory that needs them. */
	private final Map<String, String> extraConfig = new HashMap<>();

	/**
	 * One broker without a rack.
	 */
	public KafkaBroker() {
		this(List.of(), false, SecurityProtocol.PLAINTEXT, false);
	}

	private KafkaBroker(List<String> racks, boolean jvmWide, SecurityProtocol protocol, boolean proxied) {
		this(racks, false, jvmWide, protocol, proxied);
	}

	private KafkaBroker(List<String> racks, boolean replicated, boolean jvmWide, SecurityProtocol protocol,
			boolean proxied) {
		this.racks = List.copyOf(racks);
		this.replicated = replicated;
		this.jvmWide = jvmWide;
		this.protocol = protocol;
		this.proxied = proxied;
	}

	/**
	 * One broker with a second listener, advertised at a {@link FaultProxy} in front of it: clients that bootstrap
	 * through {@link #proxiedBootstrapServers()} reach the broker through the proxy for good, and the faults it
	 * injects hit them; clients of {@link #bootstrapServers()} (the test's own producer and checks) go direct.
	 * @return the broker, not started
	 */
	public static KafkaBroker withFaultProxy() {
		return new KafkaBroker(List.of(), false, SecurityProtocol.PLAINTEXT, true);
	}

	/**
	 * One broker as a secured production cluster runs: clients authenticate with SASL/PLAIN, and Kafka's standard
	 * authorizer allows a principal only what ACLs grant ({@link #admin()} is its super user; {@link #USER} an
	 * ordinary principal, see {@link #userClientConfig()}).
	 * @return the broker, not started
	 */
	public static KafkaBroker withSaslAndAcls() {
		return new KafkaBroker(List.of(), false, SecurityProtocol.SASL_PLAINTEXT, false);
	}

	/**
	 * One broker whose clients connect over TLS and must present a certificate the broker trusts; its key and trust
	 * stores are made at its start ({@link #userClientConfig()} holds the client's).
	 * @return the broker, not started
	 */
	public static KafkaBroker withMutualTls() {
		return new KafkaBroker(List.of(), false, SecurityProtocol.SSL, false);
	}

	/**
	 * A cluster shaped as production runs one: three brokers and a controller of its own (a combined quorum of three
	 * does not hold on two cores), every topic replicated three times with {@code min.insync.replicas} 2 (the
	 * internal topics too, unless a client asks otherwise). Brokers can be stopped and started one at a time
	 * ({@link #stopBroker}, {@link #startBroker}). A test class that needs it shares one across its tests.
	 * @return the cluster, not started
	 */
	public static KafkaBroker threeBrokers() {
		return new KafkaBroker(List.of(), true, false, SecurityProtocol.PLAINTEXT, false);
	}

	/**
	 * {@link #threeBrokers()} with a {@link FaultProxy} in front of every broker: each broker has a second listener,
	 * advertised at its own port of the proxy, and a fault hits the named clients' links to every broker.
	 * @return the cluster, not started
	 */
	public static KafkaBroker threeBrokersWithFaultProxy() {
		return new KafkaBroker(List.of(), true, false, SecurityProtocol.PLAINTEXT, true);
	}

	/**
	 * One broker whose streams groups (KIP-1071, {@code group.protocol=streams}) keep one standby of every stateful
	 * task and run at test timings: a heartbeat a second (the broker's floor is 5 s unless lowered) and task offsets
	 * reported every second. Only brokers of Kafka 4.2 and later run streams groups by default.
	 * @return the broker, not started
	 */
	public static KafkaBroker forStreamsGroups() {
		KafkaBroker broker = new KafkaBroker();
		broker.extraConfig.putAll(Map.of("group.streams.num.standby.replicas", "1",
				"group.streams.min.heartbeat.interval.ms", "500", "group.streams.heartbeat.interval.ms", "1000",
				"group.streams.min.session.timeout.ms", "6000", "group.streams.session.timeout.ms", "6000",
				"group.streams.initial.rebalance.delay.ms", "0", "group.streams.min.task.offset.interval.ms", "1000",
				"group.streams.task.offset.interval.ms", "1000"));
		return broker;
	}

	/**
	 * Whether this stack runs streams groups as the library's streams-protocol drain needs them: Kafka 4.4 clients and
	 * brokers (static membership, close semantics, reported task offsets; KIP-1284 brought the default close
	 * operation with them). A test class says
	 * {@code @EnabledIf("io.github.incrementalrebalance.testkit.KafkaBroker#servesStreamsGroups")}. Where the build
	 * expects streams groups ({@code -Dstreams.groups.expected=true}, the default stack) and the clients lack them, the
	 * condition fails the class rather than skip it: a stack that quietly lost the protocol would pass.
	 * @return true on Kafka 4.4 and later
	 */
	public static boolean servesStreamsGroups() {
		ClientCapabilities clients = ClientCapabilities.detected();
		boolean serves = clients.defaultCloseOperation();
		if (!serves && Boolean.getBoolean("streams.groups.expected")) {
			throw new IllegalStateException("This build expects streams groups (streams.groups.expected=true), but "
					+ "Kafka clients " + clients.kafkaVersion() + " lack what the streams-protocol drain needs (Kafka 4.4 or "
					+ "later); run the stack's profile, which does not expect them");
		}
		return serves;
	}

	/**
	 * The broker every test class of this JVM may share: one start per test JVM instead of one per class. Classes
	 * that share it keep to groups and topics of their own names.
	 * @return the shared broker, started by the first class that registers it, never stopped before the JVM exits
	 */
	public static synchronized KafkaBroker shared() {
		if (shared == null) {
			// never closed: it goes with the test JVM, whose exit a controlled shutdown of the broker (seconds, with
			// clients still connected) would only hold up past surefire's exit timeout
			shared = new KafkaBroker(List.of(), true, SecurityProtocol.PLAINTEXT, false);
		}
		return shared;
	}

	/**
	 * One broker per rack ({@code broker.rack}), the first also the controller; a topic's partitions are spread over
	 * them, one replica each, so that a partition's rack is its broker's.
	 * @param racks the racks of the brokers
	 * @return the brokers, not started
	 */
	public static KafkaBroker inRacks(String... racks) {
		return new KafkaBroker(List.of(racks), false, SecurityProtocol.PLAINTEXT, false);
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		if (!context.getTags().contains(TestTags.BROKER)) {
			throw new IllegalStateException(context.getDisplayName() + " starts a broker but is not tagged @Tag("
					+ "TestTags.BROKER): the stacks that run unit tests only would run it");
		}
		synchronized (this) {
			if (this.cluster == null) {
				start();
			}
		}
	}

	@Override
	public void afterAll(ExtensionContext context) {
		if (!this.jvmWide) {
			close();
		}
	}

	/**
	 * Start the broker (done by the extension; for use outside JUnit).
	 * @return this broker
	 */
	public KafkaBroker start() {
		// a proxied broker's ports are chosen before they are bound: a test JVM beside this one may take one meanwhile
		for (int attempt = 1;; attempt++) {
			try {
				return startOnce();
			}
			catch (RuntimeException ex) {
				if (attempt == 3 || !portTaken(ex)) {
					throw ex;
				}
				try {
					close();
				}
				catch (RuntimeException closing) {
					ex.addSuppressed(closing);
					throw ex;
				}
			}
		}
	}

	private static boolean portTaken(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof BindException) {
				return true;
			}
		}
		return false;
	}

	private KafkaBroker startOnce() {
		try {
			// a single broker cannot meet the default replication of the transaction log: exactly-once would never start
			Map<Integer, Map<String, String>> perBroker = new HashMap<>();
			for (int broker = 0; broker < this.racks.size(); broker++) {
				perBroker.put(broker, Map.of("broker.rack", this.racks.get(broker)));
			}
			if (this.proxied && this.replicated) {
				perBroker.putAll(proxiedListeners());
			}
			boolean saslPlaintext = this.protocol == SecurityProtocol.SASL_PLAINTEXT;
			KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
				// a directory Kafka's test kit makes itself is deleted in a shutdown hook, under the shared broker,
				// which is never closed, and a broker whose metadata log dir fails halts the JVM with exit code 1: after
				// every test passed, surefire then says only "Error occurred in starting fork". Closed, a broker still
				// deletes its directory
				.setBaseDirectory(Files.createTempDirectory("kafka-broker"))
				.setCombined(!this.replicated)
				.setNumBrokerNodes(this.replicated ? REPLICAS : Math.max(1, this.racks.size()))
				.setNumControllerNodes(1)
				.setPerServerProperties(perBroker)
				.setBrokerSecurityProtocol(saslPlaintext ? SecurityProtocol.SASL_PLAINTEXT : SecurityProtocol.PLAINTEXT)
				.setControllerSecurityProtocol(saslPlaintext ? SecurityProtocol.SASL_PLAINTEXT
						: SecurityProtocol.PLAINTEXT)
				.build());
			BROKER_CONFIG.forEach(builder::setConfigProp);
			if (this.replicated) {
				REPLICATED_CONFIG.forEach(builder::setConfigProp);
			}
			this.extraConfig.forEach(builder::setConfigProp);
			if (this.protocol == SecurityProtocol.SSL) {
				// Kafka's test kit makes listeners of its own for PLAINTEXT and SASL_PLAINTEXT only, and takes
				// the protocol map as given: its client listener is made to speak TLS here
				this.certificates = TestCertificates.create(Files.createTempDirectory("broker-tls"));
				this.certificates.brokerConfig().forEach(builder::setConfigProp);
				builder.setConfigProp("listener.security.protocol.map", "EXTERNAL:SSL,CONTROLLER:PLAINTEXT");
			}
			if (this.proxied && !this.replicated) {
				// the test kit takes listeners as given; its own two keep their ports chosen at start
				int proxiedPort = FaultProxy.freePort();
				this.proxy = new FaultProxy("localhost:" + proxiedPort);
				builder.setConfigProp("listeners",
						"EXTERNAL://localhost:0,PROXIED://localhost:" + proxiedPort + ",CONTROLLER://localhost:0");
				builder.setConfigProp("advertised.listeners", "EXTERNAL://localhost:0,PROXIED://" + this.proxy.address());
				builder.setConfigProp("listener.security.protocol.map",
						"EXTERNAL:PLAINTEXT,PROXIED:PLAINTEXT,CONTROLLER:PLAINTEXT");
			}
			this.cluster = builder.build();
			this.cluster.format();
			this.cluster.startup();
			this.cluster.waitForReadyBrokers();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not start the in-process Kafka broker", ex);
		}
		this.admin = Admin.create(superUserClientConfig());
		if (this.proxy != null) {
			this.proxy.open();
		}
		return this;
	}

	/**
	 * Each broker's listeners: the test kit's own, and one advertised at its port of a proxy in front of them all.
	 */
	private Map<Integer, Map<String, String>> proxiedListeners() {
		List<String> ports = new ArrayList<>();
		for (int broker = 0; broker < REPLICAS; broker++) {
			ports.add("localhost:" + FaultProxy.freePort());
		}
		this.proxy = new FaultProxy(ports);
		Map<Integer, Map<String, String>> listeners = new HashMap<>();
		for (int broker = 0; broker < REPLICAS; broker++) {
			listeners.put(broker, Map.of("listeners", "EXTERNAL://localhost:0,PROXIED://" + ports.get(broker),
					"advertised.listeners", "EXTERNAL://localhost:0,PROXIED://" + this.proxy.address(broker),
					"listener.security.protocol.map", "EXTERNAL:PLAINTEXT,PROXIED:PLAINTEXT,CONTROLLER:PLAINTEXT"));
		}
		return listeners;
	}

	/**
	 * The proxy in front of a broker {@link #withFaultProxy()}, or of every broker of
	 * {@link #threeBrokersWithFaultProxy()}.
	 * @return the proxy, open once the broker started
	 */
	public FaultProxy proxy() {
		if (this.proxy == null) {
			throw new IllegalStateException("a broker made withFaultProxy() has a proxy; this one has none");
		}
		return this.proxy;
	}

	/**
	 * Where clients bootstrap to reach the broker (every broker) through {@link #proxy()} for good.
	 * @return {@code host:port} of each of the proxy's ports, comma-separated
	 */
	public String proxiedBootstrapServers() {
		return String.join(",", proxy().addresses());
	}

	/**
	 * The settings a client of {@link #USER} needs on this broker (with mutual TLS, of the test's client certificate),
	 * bootstrap included.
	 * @return the settings
	 */
	public Map<String, Object> userClientConfig() {
		if (this.protocol == SecurityProtocol.SSL) {
			Map<String, Object> config = new HashMap<>(this.certificates.clientConfig());
			config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
			return config;
		}
		if (this.protocol != SecurityProtocol.SASL_PLAINTEXT) {
			throw new IllegalStateException("a broker without security has no users");
		}
		return plainClientConfig(USER, JaasUtils.KAFKA_PLAIN_USER1_PASSWORD);
	}

	private Map<String, Object> plainClientConfig(String user, String password) {
		return Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
				CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, this.protocol.name,
				SaslConfigs.SASL_MECHANISM, "PLAIN",
				SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.plain.PlainLoginModule required "
						+ "username=\"" + user + "\" password=\"" + password + "\";");
	}

	/**
	 * The settings of this broker's super user (with mutual TLS, any client it trusts), bootstrap included: what
	 * {@link #admin()} runs with.
	 * @return the settings
	 */
	public Map<String, Object> superUserClientConfig() {
		return switch (this.protocol) {
			case SSL -> userClientConfig();
			case SASL_PLAINTEXT -> plainClientConfig(JaasUtils.KAFKA_PLAIN_ADMIN, JaasUtils.KAFKA_PLAIN_ADMIN_PASSWORD);
			default -> Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
		};
	}

	@Override
	public synchronized void close() {
		if (this.proxy != null) {
			this.proxy.close();
		}
		if (this.admin != null) {
			this.admin.close(Duration.ofSeconds(5));
			this.admin = null;
		}
		if (this.cluster != null) {
			try {
				this.cluster.close();
			}
			catch (Exception ex) {
				throw new IllegalStateException("Could not stop the in-process Kafka broker", ex);
			}
			this.cluster = null;
		}
	}

	/**
	 * The stores of a broker with mutual TLS.
	 * @return the certificates its clients use
	 */
	public TestCertificates certificates() {
		if (this.certificates == null) {
			throw new IllegalStateException("only a started broker with mutual TLS has certificates");
		}
		return this.certificates;
	}

	public String bootstrapServers() {
		return this.cluster.bootstrapServers();
	}

	public Admin admin() {
		return this.admin;
	}

	/**
	 * Set a group's configs (under the streams protocol its standbys and timings are such configs), before its first
	 * member joins.
	 * @param groupId the group
	 * @param configs the configs to set
	 */
	public void configureGroup(String groupId, Map<String, String> configs) {
		List<AlterConfigOp> set = configs.entrySet()
			.stream()
			.map((entry) -> new AlterConfigOp(new ConfigEntry(entry.getKey(), entry.getValue()), AlterConfigOp.OpType.SET))
			.toList();
		try {
			this.admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, groupId), set))
				.all()
				.get();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException("could not set " + configs + " on group " + groupId, ex.getCause());
		}
	}

	/**
	 * Stop one broker of {@link #threeBrokers()} (a controlled shutdown: its partitions' leadership moves first).
	 * @param id the broker, 0 to 2
	 */
	public void stopBroker(int id) {
		broker(id).shutdown();
	}

	/**
	 * Start a broker {@link #stopBroker stopped} again, and wait until the controller has it back.
	 * @param id the broker
	 */
	public void startBroker(int id) {
		broker(id).startup();
		await("broker " + id + " back in the cluster").atMost(Duration.ofMinutes(1))
			.until(() -> this.admin.describeCluster().nodes().get().stream().anyMatch((node) -> node.id() == id));
	}

	private BrokerServer broker(int id) {
		if (!this.replicated) {
			throw new IllegalStateException("only a cluster of threeBrokers() stops and starts brokers one by one");
		}
		return this.cluster.brokers().get(id);
	}

	/**
	 * The broker that leads a partition now.
	 * @param topic the topic
	 * @param partition the partition
	 * @return the leader's id, empty while it has none
	 */
	public Optional<Integer> leaderOf(String topic, int partition) {
		try {
			TopicDescription description = this.admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
			return Optional.ofNullable(description.partitions().get(partition).leader()).map(Node::id);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException("Could not describe " + topic, ex.getCause());
		}
	}

	/**
	 * Create topics and wait until every partition has a leader: an idempotent producer that starts earlier can get
	 * stuck retrying out-of-order sequence numbers.
	 * @param partitions partitions of each topic
	 * @param topics the names
	 */
	public void createTopics(int partitions, String... topics) {
		createTopics(partitions, Map.of(), topics);
	}

	/**
	 * Create topics with a config and wait until every partition has a leader. With brokers in racks, partition
	 * {@code p} has its replica on broker {@code p % brokers}: in the rack of that index.
	 * @param partitions partitions of each topic
	 * @param config the topics' config
	 * @param topics the names
	 */
	public void createTopics(int partitions, Map<String, String> config, String... topics) {
		List<NewTopic> newTopics = Arrays.stream(topics).map((name) -> newTopic(name, partitions).configs(config))
			.toList();
		try {
			this.admin.createTopics(newTopics).all().get();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException("Could not create " + Arrays.toString(topics), ex.getCause());
		}
		await("leaders of " + Arrays.toString(topics)).atMost(Duration.ofSeconds(30))
			.until(() -> everyPartitionHasLeader(Arrays.asList(topics)));
	}

	private NewTopic newTopic(String name, int partitions) {
		if (this.racks.isEmpty()) {
			return new NewTopic(name, partitions, this.replicated ? REPLICAS : 1);
		}
		Map<Integer, List<Integer>> replicas = new HashMap<>();
		for (int partition = 0; partition < partitions; partition++) {
			replicas.put(partition, List.of(partition % this.racks.size()));
		}
		return new NewTopic(name, replicas);
	}

	private boolean everyPartitionHasLeader(Collection<String> topics) throws Exception {
		Map<String, TopicDescription> descriptions;
		try {
			descriptions = this.admin.describeTopics(topics).allTopicNames().get();
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof UnknownTopicOrPartitionException) {
				// a loaded broker may answer for a topic just created before its metadata has it
				return false;
			}
			throw ex;
		}
		return descriptions.values().stream()
			.flatMap((description) -> description.partitions().stream())
			.map(TopicPartitionInfo::leader)
			.allMatch((leader) -> leader != null && !leader.isEmpty());
	}

	/**
	 * The members of a consumer group as the coordinator sees them.
	 * @param groupId the group (for Kafka Streams, the application id)
	 * @return the members
	 */
	public Collection<MemberDescription> groupMembers(String groupId) {
		try {
			ConsumerGroupDescription description = this.admin.describeConsumerGroups(List.of(groupId))
				.describedGroups().get(groupId).get();
			return description.members();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException("Could not describe group " + groupId, ex.getCause());
		}
	}

}
