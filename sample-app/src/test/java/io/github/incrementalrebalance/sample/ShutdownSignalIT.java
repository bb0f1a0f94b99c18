package io.github.incrementalrebalance.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.incrementalrebalance.testkit.ExactCountVerifier;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.SampleProcess;
import io.github.incrementalrebalance.testkit.MarkerWatcher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample application's jar, as Kubernetes runs it: three separate processes against the test's broker. A SIGTERM
 * (what a scale-down sends; twice here) drains one through its ready learners: it exits on its own within 30 s, its tasks restore
 * next to nothing where they move, the others run every task and every count is exact. A {@code kill -9} of another,
 * for contrast, leaves its tasks to the session timeout and a restore from scratch (nothing lost; records the killed
 * member had not committed are counted twice, as at-least-once processing does).
 */
@Tag(TestTags.BROKER)
class ShutdownSignalIT {

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	private static final int KEYS_PER_TASK = 2_000;

	/** Learners are ready within this lag: what a moved task may restore at most at promotion. */
	private static final int ACCEPTABLE_LAG = 100;

	private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);

	@TempDir
	Path work;

	@Test
	void sigtermDrainsThroughReadyLearnersAndExitsWhileTheOthersRunEveryTaskWhereKillWaitsAndRestores()
			throws Exception {
		broker.createTopics(PageViews.PARTITIONS, PageViews.INPUT, PageViews.OUTPUT);
		List<SampleProcess> members = new ArrayList<>();
		try (TrackingProducer producer = new TrackingProducer(broker.bootstrapServers(), PageViews.INPUT)) {
			for (String name : List.of("a", "b", "c")) {
				members.add(launch(name));
			}
			SampleProcess a = members.get(0);
			SampleProcess b = members.get(1);
			SampleProcess c = members.get(2);
			await("three processes share the six tasks").atMost(Duration.ofMinutes(3))
				.until(() -> members.stream().allMatch((member) -> member.active() > 0)
						&& members.stream().mapToInt(SampleProcess::active).sum() == PageViews.PARTITIONS);
			producer.load(PageViews.PARTITIONS, KEYS_PER_TASK, 2);
			producer.startMarkers(PageViews.PARTITIONS, Duration.ofMillis(100));
			try (MarkerWatcher markers = new MarkerWatcher(broker, PageViews.OUTPUT)) {
				await("the group settled: no learner").atMost(Duration.ofMinutes(1))
					.until(() -> members.stream().noneMatch((member) -> member.rebalance().contains("LEARNING")));
				int movedBySigterm = a.active();
				long signalled = System.currentTimeMillis();
				long logOfB = b.logSize();
				long logOfC = c.logSize();
				a.process().destroy();
				// an impatient operator's second SIGTERM, mid-drain: the JVM already runs its shutdown, which goes on
				await("a drains").atMost(Duration.ofSeconds(10))
					.until(() -> Files.readString(a.log()).contains("a is leaving"));
				a.process().destroy();

				assertThat(a.process().waitFor(30, TimeUnit.SECONDS)).as("a exits on its own within 30 s").isTrue();
				long exitedAfter = System.currentTimeMillis() - signalled;
				assertThat(a.process().exitValue()).as("shutdown hooks ran to the end").isEqualTo(SampleProcess.EXIT_AFTER_SIGTERM);
				String logOfA = Files.readString(a.log());
				assertThat(logOfA).contains("a hands over, leaving the group").contains("a is closed (drained)");
				logOfA.lines()
					.filter((line) -> line.contains("i.g.i.") || line.contains("a is ") || line.contains("a hands over"))
					.forEach(System.out::println);
				await("b and c run every task").atMost(Duration.ofMinutes(1))
					.until(() -> b.active() + c.active() == PageViews.PARTITIONS);
				markers.awaitEveryTaskSince(System.currentTimeMillis(), Duration.ofMinutes(1));
				long restoredAfterSigterm = b.restoredSince(logOfB) + c.restoredSince(logOfC);
				assertThat(restoredAfterSigterm).as("restored at promotion")
					.isLessThanOrEqualTo((long) ACCEPTABLE_LAG * movedBySigterm);
				Duration sigtermStall = markers.longestGapSince(signalled);
				producer.stopMarkers();
				producer.load(PageViews.PARTITIONS, KEYS_PER_TASK, 1);
				ExactCountVerifier.assertExactCounts(broker.bootstrapServers(), PageViews.OUTPUT,
						producer.acknowledgedCounts(), Duration.ofMinutes(2));

				producer.startMarkers(PageViews.PARTITIONS, Duration.ofMillis(100));
				await("markers flow again").atMost(Duration.ofSeconds(30))
					.until(() -> markers.longestGapSince(System.currentTimeMillis() - 1_000).toMillis() > 0);
				int movedByKill = b.active();
				long killed = System.currentTimeMillis();
				long logOfCAtKill = c.logSize();
				b.process().destroyForcibly();
				assertThat(b.process().waitFor(10, TimeUnit.SECONDS)).isTrue();
				await("c runs every task").atMost(Duration.ofMinutes(2))
					.until(() -> c.active() == PageViews.PARTITIONS);
				markers.awaitEveryTaskSince(System.currentTimeMillis(), Duration.ofMinutes(1));
				long restoredAfterKill = c.restoredSince(logOfCAtKill);
				Duration killStall = markers.longestGapSince(killed);
				producer.stopMarkers();
				// at least once: a killed member's uncommitted records are processed again, so wait for none missing
				ExactCountVerifier.Mismatch afterKill = ExactCountVerifier.verifyNoneLost(broker.bootstrapServers(),
						PageViews.OUTPUT, producer.acknowledgedCounts(), Duration.ofMinutes(2));
				System.out.printf("sigterm: exited after %d ms, longest stall %d ms, restored at promotion %d "
						+ "(%d tasks moved)%nkill -9: longest stall %d ms, restored at promotion %d (%d tasks moved), "
						+ "keys lost %d, keys counted twice %d%n", exitedAfter, sigtermStall.toMillis(),
						restoredAfterSigterm, movedBySigterm, killStall.toMillis(), restoredAfterKill, movedByKill,
						afterKill.lost(), afterKill.duplicated());
				assertThat(afterKill.lost()).as("a kill loses nothing either: it costs time").isZero();
				assertThat(restoredAfterKill)
					.as("a kill moves the killed member's %d tasks cold: each restores at least its %d keys",
							movedByKill, KEYS_PER_TASK)
					.isGreaterThanOrEqualTo((long) KEYS_PER_TASK * movedByKill);
				assertThat(killStall).as("the killed member's tasks wait for the session timeout")
					.isGreaterThan(SESSION_TIMEOUT.dividedBy(2));
				assertThat(sigtermStall).as("a drain hands over within a rebalance round").isLessThan(killStall);
			}
		}
		finally {
			members.forEach((member) -> member.process().destroyForcibly());
		}
	}

	private SampleProcess launch(String name) throws IOException {
		return SampleProcess.launch(broker, this.work, name, List.of(
				"--spring.kafka.streams.properties.consumer.heartbeat.interval.ms=1000",
				"--spring.kafka.streams.properties.consumer.session.timeout.ms=" + SESSION_TIMEOUT.toMillis(),
				"--spring.kafka.streams.properties.acceptable.recovery.lag=" + ACCEPTABLE_LAG));
	}

}
