package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import io.github.incrementalrebalance.assignor.AssignorStatus;
import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.control.ControlClients;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.FaultProxy;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * How long the group leader waits for the changelogs' offsets when tasks weigh their state is the application's
 * setting ({@value LearnerConfig#TASK_WEIGHT_TIMEOUT_MS_CONFIG}), not a bound of the library's: on a link that
 * delivers every byte of the leader's size reader 1 s late, a reader on the default (5 s) says the cluster did not
 * answer in time and names the setting, so the round weighs every task one; a reader whose application allows a minute
 * reads the sizes. Both side by side, on one broker, behind a real TCP proxy; and in a group, what a round whose sizes
 * came too late costs.
 */
@Tag(TestTags.BROKER)
class ChangelogSizeReaderIntegrationTests {

	private static final String CHANGELOG = "sizes-app-counts-changelog";

	private static final Duration SLOW_LINK = Duration.ofSeconds(1);

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.withFaultProxy();

	@TempDir
	Path stateRoot;

	@Test
	void aSlowClusterIsGivenTheApplicationsTimeoutToAnswerForTheChangelogs() {
		broker.createTopics(2, CHANGELOG);
		try (TrackingProducer producer = new TrackingProducer(broker.bootstrapServers(), CHANGELOG)) {
			for (int key = 0; key < 30; key++) {
				producer.send(key % 2, "k" + key, "v");
			}
			producer.flush();
		}
		TopicPartition first = new TopicPartition(CHANGELOG, 0);
		TopicPartition second = new TopicPartition(CHANGELOG, 1);
		Set<TopicPartition> partitions = Set.of(first, second);
		ChangelogSizeReader onDefault = reader("sizes-default", Map.of());
		ChangelogSizeReader patient = reader("sizes-patient",
				Map.of(LearnerConfig.TASK_WEIGHT_TIMEOUT_MS_CONFIG, Duration.ofMinutes(1).toMillis()));
		try (onDefault; patient;
				FaultProxy.Fault slow = broker.proxy()
					.delay((clientId) -> clientId.startsWith("sizes-") && clientId.endsWith("-rebalance-sizes-admin"),
							SLOW_LINK)) {
			long start = System.nanoTime();
			assertThatIllegalStateException().isThrownBy(() -> onDefault.records(partitions))
				.withMessage("the cluster did not answer for the changelogs' offsets within PT5S "
						+ "(incremental.rebalance.task.weight.timeout.ms)");
			Duration refusedAfter = Duration.ofNanos(System.nanoTime() - start);

			start = System.nanoTime();
			Map<TopicPartition, Long> sizes = patient.records(partitions);
			Duration readIn = Duration.ofNanos(System.nanoTime() - start);

			System.out.printf("Changelog sizes through a link 1 s slow each way: refused after %d ms on the default, "
					+ "read in %d ms with a minute allowed%n", refusedAfter.toMillis(), readIn.toMillis());
			assertThat(refusedAfter).as("the default waited its 5 s").isGreaterThanOrEqualTo(Duration.ofSeconds(5));
			assertThat(sizes).isEqualTo(Map.of(first, 15L, second, 15L));
			assertThat(readIn).as("longer than the default allows: the setting is what read them")
				.isGreaterThan(LearnerConfig.DEFAULT_TASK_WEIGHT_TIMEOUT);
		}
	}

	/**
	 * What the setting decides, in a group: a leader with state-size weights whose size reads the cluster answers too
	 * slowly (its reader's link slowed 3 s each way, 2 s allowed) costs the next rebalance, a member joining, one round
	 * weighed by count, said in the status the WARN and health read, not a stalled rebalance: the group settles with
	 * the newcomer running its share, and counts stay exact.
	 */
	@Test
	void aRoundWhoseSizesCameTooLateIsWeighedByCountAndTheGroupSettles() {
		CountingApplication run = new CountingApplication(broker, "sizes-slow", 4);
		try (TrackingProducer producer = run.producer();
				StreamsLauncher launcher = run.launcher(this.stateRoot.resolve(run.applicationId()))) {
			StreamsInstance leader = launcher.instance("leader")
				.property(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, broker.proxiedBootstrapServers())
				.property(StreamsConfig.CLIENT_ID_CONFIG, "leader")
				.property(LearnerConfig.TASK_WEIGHT_CONFIG, "state-size")
				.property(LearnerConfig.TASK_WEIGHT_TIMEOUT_MS_CONFIG, Duration.ofSeconds(2).toMillis())
				.memberRuntime()
				.start();
			run.loadAndSettle(producer, 100, leader);
			AssignorStatus status = leader.runtime().assignorStatus();
			assertThat(status.weightProblem()).as("sizes read while the link is fast").isEmpty();
			long weighedByCount = status.weighedByCount();

			try (FaultProxy.Fault slow = broker.proxy()
				.delay((clientId) -> clientId.equals("leader-rebalance-sizes-admin"), Duration.ofSeconds(3))) {
				StreamsInstance joining = launcher.instance("joining").memberRuntime().start();

				await("the group settled with the newcomer running its share").atMost(Duration.ofMinutes(1))
					.until(() -> StreamsInstance.planSettled(leader, joining)
							&& StreamsInstance.activeTasksOf(leader, joining).size() == 4
							&& !joining.activeTasks().isEmpty());
				assertThat(status.weighedByCount()).as("rounds weighed by count").isGreaterThan(weighedByCount);
				assertThat(status.weightProblem()).hasValue("the cluster did not answer for the changelogs' offsets "
						+ "within PT2S (incremental.rebalance.task.weight.timeout.ms)");
				assertThat(status.fallbacks()).as("rounds that fell back to Kafka's assignor").isZero();
			}
			run.verifyCounts(producer);
		}
	}

	private static ChangelogSizeReader reader(String applicationId, Map<String, Object> settings) {
		Map<String, Object> config = new HashMap<>(settings);
		config.put("application.id", applicationId);
		config.put("bootstrap.servers", broker.proxiedBootstrapServers());
		return new ChangelogSizeReader(ControlClients.ofChangelogSizes(config),
				new LearnerConfig(config).taskWeightTimeout());
	}

}
