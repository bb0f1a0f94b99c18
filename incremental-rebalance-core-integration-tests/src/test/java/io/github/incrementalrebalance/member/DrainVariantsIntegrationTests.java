package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.control.PlanRecord;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.RestoredRecords;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The drain with the settings users run: static membership (the drained member is removed from the group at once),
 * two stream threads per instance, and standby replicas (the leaving member's standbys are placed elsewhere at once).
 * Exactly-once; counts exact at the end.
 */
@Tag(TestTags.BROKER)
@Tag(TestTags.CLIENT_LINE)
class DrainVariantsIntegrationTests {

	private static final int PARTITIONS = 4;

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateRoot;

	enum Variant {

		STATIC_MEMBERSHIP, TWO_THREADS, STANDBY_REPLICAS

	}

	@ParameterizedTest
	@EnumSource(Variant.class)
	void leavingMemberDrainsAndCloses(Variant variant) {
		String applicationId = "variant-" + variant.name().toLowerCase().replace('_', '-');
		CountingApplication application = new CountingApplication(broker, applicationId, PARTITIONS);
		try (TrackingProducer producer = application.producer();
				StreamsLauncher launcher = application.launcher(this.stateRoot.resolve(applicationId))
					.property(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2)
					.property(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, 1_000L)
					.property(StreamsConfig.STATE_CLEANUP_DELAY_MS_CONFIG, 1_000L)
					.property(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, (variant == Variant.STANDBY_REPLICAS) ? 1 : 0)
					.property(StreamsConfig.NUM_STREAM_THREADS_CONFIG, (variant == Variant.TWO_THREADS) ? 2 : 1)
					.property(LearnerConfig.LEARNER_PROBE_INTERVAL_MS_CONFIG, Duration.ofMinutes(5).toMillis())) {
			StreamsInstance a = start(launcher, "a", variant);
			StreamsInstance b = start(launcher, "b", variant);
			StreamsInstance c = start(launcher, "c", variant);
			await("b runs a share").atMost(Duration.ofMinutes(1)).until(() -> !b.activeTasks().isEmpty());
			// counted before the leave: a leaver still working through a backlog writes its changelog faster than a
			// learner reads it, and what it writes between the hand-over and its close is restored at promotion
			application.loadAndSettle(producer, 20_000, a, b, c);
			Set<TaskId> ofB = b.activeTasks();

			b.runtime().leave(Optional.empty(), "test");

			if (variant == Variant.STANDBY_REPLICAS) {
				await("b's standbys placed elsewhere").atMost(Duration.ofSeconds(30))
					.until(() -> b.plan()
						.map((plan) -> plan.leaving() && plan.standby().isEmpty())
						.orElse(false));
				List<PlanRecord> plans = b.runtime().controlView().plans();
				assertThat(plans.stream().mapToInt((plan) -> plan.plan().standby().size()).sum())
					.as("one standby per task, none on b").isEqualTo(PARTITIONS);
			}
			await("b drained and closed").atMost(Duration.ofMinutes(2))
				.until(() -> b.runtime().state() == MemberState.CLOSED);
			if (variant == Variant.STATIC_MEMBERSHIP) {
				await("the drained static member removed from the group").atMost(Duration.ofSeconds(5))
					.until(() -> broker.groupMembers(applicationId).stream()
						.map(MemberDescription::groupInstanceId)
						.flatMap(Optional::stream)
						.noneMatch((id) -> id.startsWith("static-b")));
			}
			await("a and c run every task").atMost(Duration.ofMinutes(1))
				.until(() -> StreamsInstance.allRunning(a, c)
						&& StreamsInstance.activeTasksOf(a, c).size() == PARTITIONS);
			RestoredRecords.assertRestoredAtPromotionAtMost(1_000, ofB, a.restoredRecords(), c.restoredRecords());
			application.verifyCounts(producer);
		}
	}

	private static StreamsInstance start(StreamsLauncher launcher, String name, Variant variant) {
		StreamsLauncher.Spec spec = launcher.instance(name).memberRuntime();
		if (variant == Variant.STATIC_MEMBERSHIP) {
			spec.property(StreamsConfig.mainConsumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), "static-" + name);
		}
		return spec.start();
	}

}
