package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.function.UnaryOperator;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.testkit.FaultProxy;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.TestTags;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Drains on a cluster shaped as production runs one: three brokers, every topic (the control topic, the changelogs,
 * the group's and the transactions' own) replicated three times with {@code min.insync.replicas} 2. Three members of
 * an exactly-once application whose learners restore slowly until the test lets them; b leaves, and brokers go away
 * once the leader has acknowledged the leave and placed b's learners. Whatever the brokers do, a leave without a
 * deadline hands over to ready learners.
 */
@Tag(TestTags.BROKER)
class ThreeBrokerDrainIntegrationTests {

	private static final int SESSION_TIMEOUT_MS = 20_000;

	/** Eight times the acceptable lag: a task moved cold restores far more than a warm learner may. */
	private static final int KEYS_PER_TASK = 4_000;

	/** With the fault proxy in front of every broker, for the chaos run's faults; the drains here go direct. */
	@RegisterExtension
	static final KafkaBroker cluster = KafkaBroker.threeBrokersWithFaultProxy();

	@TempDir
	Path stateRoot;

	/**
	 * Two of the three brokers down mid-drain: every write with {@code acks=all} is refused with
	 * {@code NOT_ENOUGH_REPLICAS} (the control topic's, the transactions', the group's), so no plan can be published
	 * and no learner's progress told. b waits, leaving, for as long as that lasts, never ending cold, and hands over
	 * to ready learners once the brokers are back.
	 */
	@Test
	void twoBrokersDownMidDrainKeepTheLeaverWaitingThenItHandsOverWarm() {
		cluster.createTopics(1, "not-enough-replicas-probe");
		try (DrainingMembers group = startDraining(scenario("two-down"))) {
			String controlTopic = LearnerConfig.defaultControlTopic("two-down");
			int leader = cluster.leaderOf(controlTopic, 0).orElseThrow();
			int other = (leader + 1) % 3;
			cluster.stopBroker(leader);
			cluster.stopBroker(other);
			try {
				assertThatExceptionOfType(ExecutionException.class)
					.isThrownBy(() -> writeWithoutRetries("not-enough-replicas-probe"))
					.withCauseInstanceOf(NotEnoughReplicasException.class);
				group.releaseLearners();
				await("b leaving, while writes are refused").during(Duration.ofSeconds(6))
					.atMost(Duration.ofSeconds(15))
					.until(() -> group.leaver().runtime().state() == MemberState.LEAVING);
			}
			finally {
				cluster.startBroker(other);
				cluster.startBroker(leader);
			}
			group.assertHandedOverWarm();
		}
	}

	/**
	 * Every broker restarted, one after the other, while b's learners warm up and b hands over: the way a cluster is
	 * upgraded or its certificates rotated. The first to go is the broker that leads the control topic's partition:
	 * its leadership moves mid-drain, and the members' readers and writers follow it.
	 */
	@Test
	void rollingRestartOfEveryBrokerDuringADrainStillHandsOverWarm() {
		try (DrainingMembers group = startDraining(scenario("rolling-brokers"))) {
			String controlTopic = LearnerConfig.defaultControlTopic("rolling-brokers");
			int leader = cluster.leaderOf(controlTopic, 0).orElseThrow();
			cluster.stopBroker(leader);
			await("the control topic led by another broker").atMost(Duration.ofMinutes(1))
				.until(() -> cluster.leaderOf(controlTopic, 0).filter((now) -> now != leader).isPresent());
			group.releaseLearners();
			cluster.startBroker(leader);
			for (int broker = 0; broker < 3; broker++) {
				if (broker != leader) {
					cluster.stopBroker(broker);
					cluster.startBroker(broker);
				}
			}
			group.assertHandedOverWarm();
		}
	}

	/**
	 * What the chaos run's network faults stand on: a client that bootstraps through the proxy is told every broker at
	 * the proxy's ports, and a cut of its client id takes it off every broker until healed.
	 */
	@Test
	void aClientThroughTheProxyReachesEveryBrokerThroughItAndACutTakesItOffAll() throws Exception {
		try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
				cluster.proxiedBootstrapServers(), AdminClientConfig.CLIENT_ID_CONFIG, "through-the-proxy"))) {
			assertThat(admin.describeCluster().nodes().get()).extracting((node) -> node.host() + ":" + node.port())
				.containsExactlyInAnyOrderElementsOf(cluster.proxy().addresses());
			try (FaultProxy.Fault cut = cluster.proxy().cut(FaultProxy.clientsStartingWith("through-the-proxy"))) {
				for (int broker = 0; broker < 3; broker++) {
					DescribeConfigsOptions shortly = new DescribeConfigsOptions().timeoutMs(2_000);
					ConfigResource config = new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(broker));
					assertThatExceptionOfType(ExecutionException.class)
						.as("broker %d, cut", broker)
						.isThrownBy(() -> admin.describeConfigs(List.of(config), shortly).all().get())
						.withCauseInstanceOf(TimeoutException.class);
				}
			}
			ConfigResource healed = new ConfigResource(ConfigResource.Type.BROKER, "2");
			assertThat(admin.describeConfigs(List.of(healed)).all().get()).containsKey(healed);
		}
	}

	private static void writeWithoutRetries(String topic) throws Exception {
		try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
				ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers(), ProducerConfig.ACKS_CONFIG, "all",
				ProducerConfig.RETRIES_CONFIG, 0, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false),
				new StringSerializer(), new StringSerializer())) {
			producer.send(new ProducerRecord<>(topic, "probe", "probe")).get();
		}
	}

	private DrainScenarioGroup scenario(String applicationId) {
		return new DrainScenarioGroup(cluster, this.stateRoot, applicationId, "conservative");
	}

	/**
	 * Three members whose learners restore slowly until released, b leaving with its learners placed.
	 */
	private static DrainingMembers startDraining(DrainScenarioGroup scenario) {
		DrainingMembers group = DrainingMembers.settle(scenario, (launcher) -> launcher
			// a broker's restart stretches a rebalance and a commit: the members' transactions must outlast it
			.property(StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG), 60_000)
			// while the group's coordinator moves to another broker a member's heartbeats go unanswered; at the test
			// kit's 6 s session a loaded machine fenced one, whose tasks then moved cold, as Kafka moves those of a
			// member it counts gone (production's default is 45 s)
			.property(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), SESSION_TIMEOUT_MS),
				UnaryOperator.identity(), KEYS_PER_TASK);
		group.leave(group.members().get(1));
		group.awaitAcknowledged(Duration.ofMinutes(1));
		return group;
	}

}
