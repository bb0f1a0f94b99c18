package io.github.incrementalrebalance.cloudstream;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;

import io.github.incrementalrebalance.member.DrainOutcome;
import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.RestoredRecords;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.context.ConfigurableApplicationContext;

import static io.github.incrementalrebalance.cloudstream.CountingBinderApplication.activeTasks;
import static io.github.incrementalrebalance.cloudstream.CountingBinderApplication.activeTasksOf;
import static io.github.incrementalrebalance.cloudstream.CountingBinderApplication.member;
import static io.github.incrementalrebalance.cloudstream.CountingBinderApplication.restoredRecords;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three instances of a Spring Cloud Stream Kafka Streams binder application on a real broker, the starter on the
 * class path and nothing else wired: one is asked to leave over HTTP, as an operator asks, and hands its tasks to warm
 * learners on the other two within the stall bound the starter publishes. A measurement, run alone in CI's timing
 * stage; the build runs the same drain, bound to nothing but warm, in {@link TwoApplicationsInOneJvmIntegrationTests}.
 */
@Tag(TestTags.BROKER)
@Tag(TestTags.TIMING)
class BinderDrainIntegrationTests {

	private static final int PARTITIONS = 6;

	private static final int ACCEPTABLE_LAG = 100;

	/**
	 * The longest a moved task may stall at a 500 ms heartbeat, as for an application of the starter's own: under the
	 * build's parallel test JVMs a hand-over takes up to three times as long.
	 */
	private static final Duration STALL_BOUND = Duration.ofSeconds(1);

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	private final ActuatorClient actuator = new ActuatorClient();

	@Test
	void oneOfThreeBinderInstancesAskedOverHttpDrainsThroughWarmLearnersWithinASecond() throws Exception {
		String application = "binder-app";
		CountingApplication run = new CountingApplication(broker, application, PARTITIONS);
		try (TrackingProducer producer = run.producer();
				ConfigurableApplicationContext a = start("a", run);
				ConfigurableApplicationContext b = start("b", run);
				ConfigurableApplicationContext c = start("c", run)) {
			run.loadAndSettle(producer, 20 * ACCEPTABLE_LAG, TrackingProducer.MARKER_INTERVAL,
					() -> activeTasksOf(application, a, b, c));
			Set<TaskId> ofB = activeTasks(b, application);
			assertThat(ofB).isNotEmpty();
			MemberRuntime leaving = member(b, application);
			Instant askedAt = Instant.now();

			HttpResponse<String> leave = this.actuator.leave(b, "{}");

			assertThat(leave.statusCode()).as(leave.body()).isEqualTo(202);
			await("b drained and closed").atMost(Duration.ofMinutes(2))
				.until(() -> leaving.state() == MemberState.CLOSED);
			await("a and c run every task").atMost(Duration.ofMinutes(1))
				.until(() -> activeTasksOf(application, a, c).size() == PARTITIONS
						&& run.gapMeter().allProcessedSince(ofB, Instant.now().minusMillis(300)));
			assertThat(leaving.drainOutcome()).hasValueSatisfying((outcome) -> {
				assertThat(outcome.kind()).isEqualTo(DrainOutcome.Kind.DRAINED);
				assertThat(outcome.tasksMovedCold()).isZero();
			});
			RestoredRecords.assertRestoredAtPromotionAtMost(ACCEPTABLE_LAG, ofB, restoredRecords(a, application),
					restoredRecords(c, application));
			Duration stall = run.gapMeter().longestGap(ofB, askedAt, Instant.now());
			System.out.printf("Binder application, alone: b's moved tasks stalled %d ms at most (bound %d ms)%n",
					stall.toMillis(), STALL_BOUND.toMillis());
			assertThat(stall).as("longest stall of b's tasks").isLessThanOrEqualTo(STALL_BOUND);
			await("a survivor's group view says how b left").atMost(Duration.ofSeconds(30))
				.until(() -> this.actuator.get(a, "/actuator/rebalance/group").body(),
						(body) -> body.contains("\"instanceId\":\"b\"") && body.contains("\"outcome\":\"drained\""));
			assertThat(b.isActive()).as("drain.on-drained=shutdown: b's context closed once drained").isFalse();
			run.verifyCounts(producer);
		}
	}

	private ConfigurableApplicationContext start(String instance, CountingApplication run) {
		return CountingBinderApplication.start(broker, instance, this.stateRoot, Map.of("process", run),
				"spring.cloud.stream.kafka.streams.binder.configuration.acceptable.recovery.lag=" + ACCEPTABLE_LAG);
	}

}
