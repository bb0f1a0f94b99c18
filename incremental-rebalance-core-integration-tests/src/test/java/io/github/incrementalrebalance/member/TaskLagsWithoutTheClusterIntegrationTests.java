package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.FaultProxy;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The tasks of a member, with the lags of its standbys, as the endpoint, the live page and a metrics scrape ask for
 * them: while the cluster does not answer, each answer still comes at once, from the member's last sample, whose age
 * says how stale it is; a request to the cluster on the caller's thread would hold it (and a web server's graceful
 * shutdown) for the admin client's timeout.
 */
@Tag(TestTags.BROKER)
class TaskLagsWithoutTheClusterIntegrationTests {

	private static final int PARTITIONS = 4;

	/** Far longer than any one answer may take: a request to the cluster blocks for the admin's timeout. */
	private static final Duration LONGEST_ANSWER = Duration.ofMillis(500);

	private static final Duration OUTAGE = Duration.ofSeconds(4);

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.withFaultProxy();

	@TempDir
	Path stateRoot;

	@Test
	void tasksAreAnsweredFromTheLastSampleWhileTheClusterDoesNotAnswer() {
		CountingApplication run = new CountingApplication(broker, "lags-offline", PARTITIONS);
		try (TrackingProducer producer = run.producer(); StreamsLauncher launcher = launcher(run)) {
			StreamsInstance a = start(launcher, "a");
			StreamsInstance b = start(launcher, "b");
			run.loadAndSettle(producer, 100, a, b);
			MemberRuntime member = b.runtime();
			await("b's standbys with a lag read lately").atMost(Duration.ofSeconds(30))
				.until(() -> hasStandbyLags(member.tasks()) && member.lagsAge().orElseThrow().toMillis() < 1_000);

			AtomicReference<Duration> longest = new AtomicReference<>(Duration.ZERO);
			try (FaultProxy.Fault outage = broker.proxy().blackHole(FaultProxy.clientsStartingWith("b-"))) {
				await("b's tasks, with its standbys' last lags, while the cluster does not answer").during(OUTAGE)
					.atMost(OUTAGE.plusSeconds(30))
					.pollInterval(Duration.ofMillis(100))
					.until(() -> {
						long asked = System.nanoTime();
						List<TaskState> tasks = member.tasks();
						longest.accumulateAndGet(Duration.ofNanos(System.nanoTime() - asked),
								(one, other) -> (one.compareTo(other) > 0) ? one : other);
						return hasStandbyLags(tasks);
					});
				assertThat(member.lagsAge()).as("the age of lags the cluster could not refresh")
					.hasValueSatisfying((age) -> assertThat(age).isGreaterThan(OUTAGE.minusSeconds(1)));
			}
			assertThat(longest.get()).as("the longest answer while the cluster did not answer").isLessThan(LONGEST_ANSWER);
			await("b's lags read again once the cluster answers").atMost(Duration.ofMinutes(2))
				.until(() -> !member.tasks().isEmpty() && member.lagsAge().orElseThrow().toMillis() < 1_000);
		}
	}

	private static boolean hasStandbyLags(List<TaskState> tasks) {
		return tasks.stream().anyMatch((task) -> task.role() == TaskRole.STANDBY)
				&& tasks.stream().filter((task) -> task.role() == TaskRole.STANDBY).allMatch((task) -> task.lag().isPresent());
	}

	private static StreamsInstance start(StreamsLauncher launcher, String name) {
		return launcher.instance(name)
			.behindProxyOf(broker)
			.memberRuntime()
			.start();
	}

	private StreamsLauncher launcher(CountingApplication application) {
		// the group holds b through the outage: this test is about the answers, not about a rebalance
		return application.launcher(this.stateRoot.resolve(application.applicationId()))
			.property(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, 1)
			.property(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 30_000);
	}

}
