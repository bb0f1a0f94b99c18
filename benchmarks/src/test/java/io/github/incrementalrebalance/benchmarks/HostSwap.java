package io.github.incrementalrebalance.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.testkit.RestoredRecords;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import org.apache.kafka.streams.processor.TaskId;

import static org.awaitility.Awaitility.await;

/**
 * One host swap, as a blue-green deploy does it: two instances (a, b) run every task; two new ones (c, d) start with
 * no state, and once they run, a and b go: asked to leave together (learners), or closed together (Kafka). Measured
 * from the moment c and d run (with standbys, once Kafka placed them: {@link #STANDBY_WAIT}) until they run every task
 * and a and b are gone; every task moves.
 */
final class HostSwap implements Scenario {

	/**
	 * How long Kafka's assignor is given, with standbys, to put a caught-up copy of every task on c or d before a and
	 * b go (three of its fastest probing rebalances by default; {@code -Dbenchmark.standby-wait-seconds}): it does not
	 * know they will, and may keep some task's only standby on a or b.
	 */
	private static final Duration STANDBY_WAIT = Duration
		.ofSeconds(Long.getLong("benchmark.standby-wait-seconds", 180));

	@Override
	public String name() {
		return "host-swap";
	}

	@Override
	public AvailabilityResult run(BenchmarkGroup group) {
		List<StreamsInstance> old = group.startLoaded("a", "b");
		StreamsInstance a = old.get(0);
		StreamsInstance b = old.get(1);
		Set<TaskId> all = StreamsInstance.activeTasksOf(a, b);
		StreamsInstance c = group.start("c");
		StreamsInstance d = group.start("d");
		await("c and d run").atMost(Duration.ofMinutes(2)).until(() -> StreamsInstance.allRunning(a, b, c, d));
		Set<TaskId> warm = (group.strategy().standbys() > 0) ? group.awaitWarmCopies(all, STANDBY_WAIT, c, d) : null;
		Timeline timeline = new Timeline(Instant.now());
		if (warm != null) {
			Set<TaskId> cold = new TreeSet<>(all);
			cold.removeAll(warm);
			timeline.mark(warm.size() + " of " + all.size() + " tasks with a copy within the acceptable lag on c or d"
					+ (cold.isEmpty() ? "" : "; after " + STANDBY_WAIT.toSeconds() + " s Kafka held the standbys of "
							+ cold + " on a or b only"));
		}

		if (group.strategy().learners()) {
			timeline.followLeave(a, c);
			timeline.followLeave(b, c);
			a.runtime().leave(Optional.empty(), "benchmark");
			b.runtime().leave(Optional.empty(), "benchmark");
			await("a and b drained").atMost(Duration.ofMinutes(10))
				.until(() -> a.runtime().state() == MemberState.CLOSED && b.runtime().state() == MemberState.CLOSED);
		}
		else {
			a.close();
			timeline.mark("a closed");
			b.close();
			timeline.mark("b closed");
		}
		await("c and d run every task").atMost(Duration.ofMinutes(10))
			.until(() -> StreamsInstance.allRunning(c, d)
					&& StreamsInstance.activeTasksOf(c, d).size() == group.settings().partitions()
					&& group.gapMeter()
						.allProcessedOnSince(all, List.of(c.name(), d.name()), Instant.now().minusMillis(300)));

		Instant to = Instant.now();
		timeline.read(to, group.gapMeter(), all, List.of(a, b), a, b, c, d);
		long restored = all.stream()
			.mapToLong((task) -> c.restoredRecords().restoredInto(task) + d.restoredRecords().restoredInto(task))
			.sum();
		if (group.strategy().learners()) {
			// what the learners' figures claim: a hand-over to ready learners, not a restore
			RestoredRecords.assertRestoredAtPromotionAtMost(group.settings().acceptableLag(), all,
					c.restoredRecords(), d.restoredRecords());
		}
		return group.measure(all, Set.of(), timeline, to, restored,
				Math.max(c.rebalancesSince(timeline.start()), d.rebalancesSince(timeline.start())));
	}

}
