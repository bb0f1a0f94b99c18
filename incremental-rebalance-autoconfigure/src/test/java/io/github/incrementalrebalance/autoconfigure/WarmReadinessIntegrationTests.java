package io.github.incrementalrebalance.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

import ch.qos.logback.classic.Level;
import io.github.incrementalrebalance.control.PlanRecord;
import io.github.incrementalrebalance.identity.MemberIdentity;
import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.testkit.ExactCountVerifier;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.LogCapture;
import io.github.incrementalrebalance.testkit.RestoreThrottle;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ConfigurableApplicationContext;

import static io.github.incrementalrebalance.autoconfigure.CountingBootApplication.activeTasks;
import static io.github.incrementalrebalance.autoconfigure.CountingBootApplication.running;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Readiness that means warm, as a rollout needs it: a new instance joining a group whose tasks have state refuses
 * traffic while the learners placed on it restore (held back on purpose), and accepts it once they were promoted, with
 * its share of the tasks. One whose learners cannot get ready within {@code readiness.timeout} accepts traffic
 * then anyway and says why.
 */
@Tag(TestTags.BROKER)
class WarmReadinessIntegrationTests {

	private static final int PARTITIONS = 4;

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	@Test
	void aNewInstanceIsReadyOnceItsLearnersWerePromotedOrOnceTheBoundPassed() {
		broker.createTopics(PARTITIONS, "warm-app-input", "warm-app-output");
		RestoreThrottle slowB = RestoreThrottle.of(1);
		RestoreThrottle slowD = RestoreThrottle.of(1);
		String lag = "spring.kafka.streams.properties.acceptable.recovery.lag=100";
		try (TrackingProducer producer = new TrackingProducer(broker.bootstrapServers(), "warm-app-input");
				ConfigurableApplicationContext a = CountingBootApplication.start(broker, "warm-app", "a",
						this.stateRoot, null, false, lag)) {
			await("a runs every task").atMost(Duration.ofMinutes(1))
				.until(() -> running(a) && activeTasks(a).size() == PARTITIONS);
			producer.load(PARTITIONS, 5_000, 1);
			ExactCountVerifier.assertExactCounts(broker.bootstrapServers(), "warm-app-output",
					producer.acknowledgedCounts(), Duration.ofMinutes(2));

			try (LogCapture log = LogCapture.of(WarmReadiness.class);
					ConfigurableApplicationContext b = CountingBootApplication.start(broker, "warm-app", "b",
							this.stateRoot, slowB, false, lag, "incremental-rebalance.readiness.warm=true",
							"incremental-rebalance.readiness.timeout=5s")) {
				MemberRuntime member = b.getBean(MemberRuntimes.class).all().get(0);
				await("learners placed on b").atMost(Duration.ofMinutes(1)).until(() -> learning(member));
				await("b ready once the bound passed").atMost(Duration.ofMinutes(1))
					.until(() -> b.getBean(ApplicationAvailability.class)
						.getReadinessState() == ReadinessState.ACCEPTING_TRAFFIC);
				assertThat(Duration.between(member.identity().startedAt(), Instant.now()))
					.isGreaterThanOrEqualTo(Duration.ofSeconds(5));
				assertThat(learning(member)).as("its learners still restore").isTrue();
				assertThat(log.messages(Level.WARN)).singleElement()
					.asString()
					.startsWith("b accepts traffic without being warm, PT5S after it started "
							+ "(incremental-rebalance.readiness.timeout): its learners of [")
					.endsWith("] are still restoring");
				slowB.release();
			}

			try (ConfigurableApplicationContext d = CountingBootApplication.start(broker, "warm-app", "d",
					this.stateRoot, slowD, false, lag, "incremental-rebalance.readiness.warm=true")) {
				ApplicationAvailability availability = d.getBean(ApplicationAvailability.class);
				assertThat(availability.getReadinessState()).as("started, not warm")
					.isEqualTo(ReadinessState.REFUSING_TRAFFIC);
				MemberRuntime member = d.getBean(MemberRuntimes.class).all().get(0);
				await("learners placed on d").atMost(Duration.ofMinutes(1)).until(() -> learning(member));
				assertThat(availability.getReadinessState()).as("its learners restore")
					.isEqualTo(ReadinessState.REFUSING_TRAFFIC);

				slowD.release();

				await("d ready").atMost(Duration.ofMinutes(1))
					.until(() -> availability.getReadinessState() == ReadinessState.ACCEPTING_TRAFFIC);
				assertThat(learning(member)).as("every learner placed on d was promoted or dropped").isFalse();
				await("d holds its share").atMost(Duration.ofSeconds(30)).until(() -> !activeTasks(d).isEmpty());
			}
		}
	}

	private static boolean learning(MemberRuntime member) {
		MemberIdentity identity = member.identity();
		return member.controlView()
			.plan(identity.instanceId(), identity.incarnation())
			.map(PlanRecord::plan)
			.filter((plan) -> !plan.learning().isEmpty())
			.isPresent();
	}

}
