package io.github.incrementalrebalance.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.testkit.RestoredRecords;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.processor.TaskId;

import static org.awaitility.Awaitility.await;

/**
 * One scale-down of a group of three instances (a, b, c) while markers flow: b leaves, by a leave request with
 * learners or by closing without them. Measured from the request (or the close) until a and c run every task and b's
 * tasks process again.
 */
final class ScaleDown implements Scenario {

	private final String name;

	ScaleDown() {
		this("scale-down");
	}

	/**
	 * @param name names the run (its application id, its result file): one per state size in a sweep
	 */
	ScaleDown(String name) {
		this.name = name;
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public AvailabilityResult run(BenchmarkGroup group) {
		List<StreamsInstance> members = group.startLoaded("a", "b", "c");
		StreamsInstance a = members.get(0);
		StreamsInstance b = members.get(1);
		StreamsInstance c = members.get(2);
		// Kafka's own assignor gives an instance that joined after the others had state no active task until its
		// warm-ups catch up (a probing rebalance later): a scale-down of an instance that runs nothing measures nothing
		await("b runs a share of the tasks").atMost(Duration.ofMinutes(5))
			.until(() -> StreamsInstance.allRunning(a, b, c) && !b.activeTasks().isEmpty()
					&& StreamsInstance.activeTasksOf(a, b, c).size() == group.settings().partitions());
		Set<TaskId> moved = b.activeTasks();
		Set<TaskId> unmoved = StreamsInstance.activeTasksOf(a, c);
		long standbyLag = (group.strategy().standbys() > 0) ? group.awaitStandbysCaughtUp(moved, a, c) : -1;
		Timeline timeline = new Timeline(Instant.now());
		if (standbyLag >= 0) {
			timeline.mark("standbys of b's tasks within " + standbyLag + " records of their changelogs");
		}

		if (group.strategy().learners()) {
			timeline.followLeave(b, a);
			b.runtime().leave(Optional.empty(), "benchmark");
			await("b drained").atMost(Duration.ofMinutes(10)).until(() -> b.runtime().state() == MemberState.CLOSED);
		}
		else if (group.strategy().isStreamsProtocol()) {
			// Kafka Streams' close with a real leave: a close without one stays in a streams group until its session
			// ends (Kafka 4.4 honours that there), which would measure the session timeout
			b.close(new KafkaStreams.CloseOptions().leaveGroup(true).timeout(Duration.ofSeconds(30)));
			timeline.mark("b closed, leaving the group");
		}
		else {
			b.close();
			timeline.mark("b closed");
		}
		await("a and c run every task").atMost(Duration.ofMinutes(10))
			.until(() -> StreamsInstance.allRunning(a, c)
					&& StreamsInstance.activeTasksOf(a, c).size() == group.settings().partitions()
					&& group.gapMeter()
						.allProcessedOnSince(moved, List.of(a.name(), c.name()), Instant.now().minusMillis(300)));

		Instant to = Instant.now();
		timeline.read(to, group.gapMeter(), moved, List.of(b), a, b, c);
		long restored = RestoredRecords.restoredInto(moved, a.restoredRecords(), c.restoredRecords());
		if (group.strategy().learners()) {
			// what the learners' figures claim: a hand-over to ready learners, not a restore
			RestoredRecords.assertRestoredAtPromotionAtMost(group.settings().acceptableLag(), moved,
					a.restoredRecords(), c.restoredRecords());
		}
		return group.measure(moved, unmoved, timeline, to, restored,
				Math.max(a.rebalancesSince(timeline.start()), c.rebalancesSince(timeline.start())));
	}

}
