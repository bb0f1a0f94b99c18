package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;

import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.FaultProxy;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A static member with two stream threads restarts over a slow link (a join that takes longer than the delay after
 * which a new member's join is announced, as over TLS or across zones): the group still holds it, the coordinator
 * gives each of its threads its tasks back, and nobody else rebalances.
 */
@Tag(TestTags.BROKER)
@Tag(TestTags.CLIENT_LINE)
class StaticMemberRestartIntegrationTests {

	private static final int THREADS = 2;

	private static final int PARTITIONS = 6;

	private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(30);

	/** Each way: a FindCoordinator and a JoinGroup take over a second, past the first join's announcement. */
	private static final Duration SLOW_LINK = Duration.ofMillis(250);

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.withFaultProxy();

	@TempDir
	Path stateRoot;

	@Test
	void staticMemberWithSeveralThreadsRestartingOverASlowLinkRebalancesNobody() {
		CountingApplication run = new CountingApplication(broker, "static-threads", PARTITIONS);
		try (TrackingProducer producer = run.producer(); StreamsLauncher launcher = launcher(run)) {
			StreamsInstance a = start(launcher, "a");
			StreamsInstance b = start(launcher, "b");
			StreamsInstance c = start(launcher, "c");
			run.loadAndSettle(producer, 100, a, b, c);
			await("the plan settled").atMost(Duration.ofMinutes(1))
				.until(() -> StreamsInstance.planSettled(a, b, c));
			Set<TaskId> ofB = b.activeTasks();
			assertThat(ofB).isNotEmpty();
			Instant restartedAt = Instant.now();

			b.close();
			StreamsInstance restarted;
			try (FaultProxy.Fault slow = broker.proxy().delay(FaultProxy.clientsStartingWith("b-"), SLOW_LINK)) {
				restarted = start(launcher, "b");
				await("b running its tasks again").atMost(Duration.ofMinutes(1))
					.until(() -> restarted.kafkaStreams().state().isRunningOrRebalancing()
							&& restarted.activeTasks().equals(ofB));
			}
			await("a and c run undisturbed").during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(10))
				.until(() -> a.rebalancesSince(restartedAt) == 0 && c.rebalancesSince(restartedAt) == 0);
			run.verifyCounts(producer);
		}
	}

	private static StreamsInstance start(StreamsLauncher launcher, String name) {
		// Kafka Streams appends "-<thread index>" to the instance id of each thread's consumer
		return launcher.instance(name)
			.threads(THREADS)
			.behindProxyOf(broker)
			.property(StreamsConfig.mainConsumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), name)
			.memberRuntime()
			.start();
	}

	private StreamsLauncher launcher(CountingApplication application) {
		return application.launcher(this.stateRoot.resolve(application.applicationId()))
			.property(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG),
					(int) SESSION_TIMEOUT.toMillis());
	}

}
