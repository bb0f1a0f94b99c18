package io.github.incrementalrebalance.testkit;

import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
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

	private static KafkaBroker shared;

	private final List<String> racks;

	/** Whether this is the JVM's shared broker, which outlives each test class that uses it. */
	private final boolean jvmWide;

	private KafkaClusterTestKit cluster;

	private Admin admin;

	/**
	 * One broker without a rack.
	 */
	public KafkaBroker() {
		this(List.of(), false);
	}

	private KafkaBroker(List<String> racks, boolean jvmWide) {
		this.racks = List.copyOf(racks);
		this.jvmWide = jvmWide;
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
			shared = new KafkaBroker(List.of(), true);
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
		return new KafkaBroker(List.of(racks), false);
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
		try {
			// a single broker cannot meet the default replication of the transaction log: exactly-once would never start
			Map<Integer, Map<String, String>> perBroker = new HashMap<>();
			for (int broker = 0; broker < this.racks.size(); broker++) {
				perBroker.put(broker, Map.of("broker.rack", this.racks.get(broker)));
			}
			KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
				.setCombined(true)
				.setNumBrokerNodes(Math.max(1, this.racks.size()))
				.setNumControllerNodes(1)
				.setPerServerProperties(perBroker)
				.build());
			BROKER_CONFIG.forEach(builder::setConfigProp);
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
		this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()));
		return this;
	}

	@Override
	public synchronized void close() {
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

	public String bootstrapServers() {
		return this.cluster.bootstrapServers();
	}

	public Admin admin() {
		return this.admin;
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
			return new NewTopic(name, partitions, (short) 1);
		}
		Map<Integer, List<Integer>> replicas = new HashMap<>();
		for (int partition = 0; partition < partitions; partition++) {
			replicas.put(partition, List.of(partition % this.racks.size()));
		}
		return new NewTopic(name, replicas);
	}

	private boolean everyPartitionHasLeader(Collection<String> topics) throws Exception {
		Map<String, TopicDescription> descriptions = this.admin.describeTopics(topics).allTopicNames().get();
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
