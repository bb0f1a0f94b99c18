package io.github.incrementalrebalance.sample;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.incrementalrebalance.testkit.ExactCountVerifier;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.SampleProcess;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A StatefulSet restarting one of its pods (a rollout, a node drain), as real processes of the sample's jar with the
 * StatefulSet manifest's settings: the pod's name as its instance id and as its {@code group.instance.id}, a 60 s
 * session, the sample's drain on shutdown left on. The restarted process gets its old state directory back, as a pod
 * gets its volume. A static member's SIGTERM is a restart, not a leave: no drain, no leave record, the other member
 * never takes its tasks, the group does not rebalance, and the restart finds its state where it left it, restoring at
 * most a tail. On demand, as the
 * rollout is: {@code mvn -B -pl sample-app -am verify -Dit.test=StatefulSetBounceIT -Dtest=none
 * -Dsurefire.failIfNoSpecifiedTests=false} (about a minute here).
 */
@Tag(TestTags.BROKER)
class StatefulSetBounceIT {

	private static final int KEYS_PER_TASK = 20_000;

	private static final ObjectMapper JSON = new ObjectMapper();

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path work;

	@Test
	void aPodRestartedWithItsVolumeKeepsItsTasksWithoutADrainOrAColdRestore() throws Exception {
		broker.createTopics(PageViews.PARTITIONS, PageViews.INPUT, PageViews.OUTPUT);
		List<SampleProcess> all = new ArrayList<>();
		try (TrackingProducer producer = new TrackingProducer(broker.bootstrapServers(), PageViews.INPUT)) {
			SampleProcess stays = launch("sample-app-0", all);
			SampleProcess bounced = launch("sample-app-1", all);
			await("both pods share the six tasks").atMost(Duration.ofMinutes(3))
				.until(() -> stays.active() > 0 && bounced.active() > 0
						&& stays.active() + bounced.active() == PageViews.PARTITIONS);
			producer.load(PageViews.PARTITIONS, KEYS_PER_TASK, 1);
			ExactCountVerifier.assertExactCounts(broker.bootstrapServers(), PageViews.OUTPUT,
					producer.acknowledgedCounts(), Duration.ofMinutes(3));
			await("the group settled, nothing learning").atMost(Duration.ofMinutes(2))
				.until(() -> activeOf(stays, "sample-app-0").size() + activeOf(stays, "sample-app-1").size()
						== PageViews.PARTITIONS && !stays.rebalance().contains("LEARNING"));
			Set<String> ofStays = activeOf(stays, "sample-app-0");
			Set<String> ofBounced = activeOf(stays, "sample-app-1");
			int generation = generationOf(stays);

			bounced.process().destroy();
			assertThat(bounced.process().waitFor(1, TimeUnit.MINUTES)).as("the pod exits on SIGTERM").isTrue();
			assertThat(bounced.process().exitValue()).isEqualTo(SampleProcess.EXIT_AFTER_SIGTERM);
			assertThat(bounced.logSince(0)).as("no drain on a static member's shutdown")
				.contains("sample-app-1 is a static member (group.instance.id sample-app-1): a shutdown keeps its "
						+ "tasks for its restart")
				.doesNotContain("is leaving (leave");

			AtomicInteger mostOnTheOther = new AtomicInteger();
			SampleProcess restarted = launch("sample-app-1", all);
			await("the restarted pod runs its own tasks again").atMost(Duration.ofMinutes(2))
				.pollInterval(Duration.ofMillis(200))
				.until(() -> {
					mostOnTheOther.accumulateAndGet(stays.active(), Math::max);
					return restarted.active() == ofBounced.size()
							&& activeOf(stays, "sample-app-1").equals(ofBounced);
				});
			int generationAfter = generationOf(stays);
			long restored = restarted.restoredSince(0);
			System.out.printf("StatefulSet bounce: the other pod ran at most %d tasks (its own %d), the restarted pod "
					+ "restored %,d records into its %d tasks (%,d keys each, counted once), generation %d -> %d%n",
					mostOnTheOther.get(), ofStays.size(), restored, ofBounced.size(), KEYS_PER_TASK, generation,
					generationAfter);
			assertThat(mostOnTheOther.get()).as("the other pod never took the restarting pod's tasks")
				.isEqualTo(ofStays.size());
			assertThat(activeOf(stays, "sample-app-0")).isEqualTo(ofStays);
			assertThat(generationAfter).as("no rebalance: the coordinator gave the static member its assignment back")
				.isEqualTo(generation);
			assertThat(JSON.readTree(stays.group()).findValues("left"))
				.as("no leave record: the restart was not a leave")
				.allSatisfy((left) -> assertThat(left.isEmpty()).isTrue());
			assertThat(restored).as("a tail at most: the state was where the pod left it")
				.isLessThan((long) KEYS_PER_TASK);
			producer.load(PageViews.PARTITIONS, 1_000, 1);
			ExactCountVerifier.assertExactCounts(broker.bootstrapServers(), PageViews.OUTPUT,
					producer.acknowledgedCounts(), Duration.ofMinutes(3));
		}
		finally {
			all.forEach((member) -> member.process().destroyForcibly());
		}
	}

	/** The tasks one member runs in the group's current plan, as another member's endpoint shows it. */
	private static Set<String> activeOf(SampleProcess asked, String instanceId) {
		Set<String> active = new TreeSet<>();
		memberPlan(asked, instanceId).ifPresent((plan) -> plan.path("active").forEach((task) -> active.add(task.asString())));
		return active;
	}

	private static Optional<JsonNode> memberPlan(SampleProcess asked, String instanceId) {
		String group = asked.group();
		if (group.isEmpty()) {
			return Optional.empty();
		}
		for (JsonNode member : JSON.readTree(group).path("applications").path(0).path("members")) {
			if (member.path("instanceId").asString().equals(instanceId)) {
				return Optional.of(member);
			}
		}
		return Optional.empty();
	}

	private static int generationOf(SampleProcess asked) {
		return JSON.readTree(asked.group()).path("applications").path(0).path("generation").asInt();
	}

	private SampleProcess launch(String name, List<SampleProcess> all) throws IOException {
		// the StatefulSet manifest's arguments: the pod's name is its instance id and its static membership
		SampleProcess process = SampleProcess.launch(broker, this.work, name,
				List.of("--spring.kafka.streams.properties.group.instance.id=" + name,
						"--spring.kafka.streams.properties.session.timeout.ms=60000"));
		all.add(process);
		return process;
	}

}
