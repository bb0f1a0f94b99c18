package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.github.incrementalrebalance.control.ProgressRecord;
import io.github.incrementalrebalance.control.ProgressRecord.LearnerProgress;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A drain is stalled when its learners that are not ready stop coming closer for the bound, and moves again when one
 * does.
 */
class DrainStallWatchTests {

	private static final Instant START = Instant.parse("2026-12-02T10:00:00Z");

	private static final Duration BOUND = Duration.ofMinutes(5);

	private final DrainStallWatch watch = new DrainStallWatch(BOUND, START);

	@Test
	void learnersWhoseLagFallsAreNoStallHoweverLongTheyTake() {
		for (int minute = 0; minute <= 60; minute++) {
			assertThat(this.watch.observe(START.plus(Duration.ofMinutes(minute)),
					Map.of("0_1", Optional.of(100_000L - minute * 1_000L)))).isEmpty();
		}
	}

	@Test
	void learnersThatComeNoCloserForTheBoundStallTheDrainUntilOneDoes() {
		this.watch.observe(START, Map.of("0_1", Optional.of(5_000L), "0_2", Optional.of(7_000L)));
		assertThat(this.watch.observe(START.plus(BOUND).minusSeconds(1),
				Map.of("0_1", Optional.of(5_200L), "0_2", Optional.of(7_000L)))).as("within the bound").isEmpty();

		Optional<String> stalled = this.watch.observe(START.plus(BOUND),
				Map.of("0_1", Optional.of(5_300L), "0_2", Optional.of(7_100L)));

		assertThat(stalled).hasValueSatisfying((why) -> assertThat(why)
			.startsWith("no learner of [0_1, 0_2] came closer to ready for PT5M (lag 12000)")
			.contains("the changelog may be written faster than it restores"));
		assertThat(this.watch.observe(START.plus(BOUND).plusSeconds(10),
				Map.of("0_1", Optional.of(4_900L), "0_2", Optional.of(7_100L)))).as("0_1 came closer").isEmpty();
	}

	@Test
	void aLearnerThatReportsNothingMakesNoProgressAndIsNamed() {
		this.watch.observe(START, Map.of("0_3", Optional.empty()));
		assertThat(this.watch.observe(START.plus(BOUND), Map.of("0_3", Optional.empty())))
			.hasValueSatisfying((why) -> assertThat(why).contains("(lag 0; no report for [0_3])"));
	}

	@Test
	void aTaskHandedOverOrNoLearnerToWaitForIsProgress() {
		this.watch.observe(START, Map.of("0_1", Optional.of(5_000L), "0_2", Optional.of(7_000L)));
		assertThat(this.watch.observe(START.plus(BOUND), Map.of("0_2", Optional.of(7_000L))))
			.as("0_1 was handed over").isEmpty();
		assertThat(this.watch.observe(START.plus(BOUND.multipliedBy(3)), Map.of())).as("every learner ready").isEmpty();
	}

	@Test
	void theLearnersADrainWaitsForAreItsBeingLearnedTasksWhoseLearnersAreNotReady() {
		ProgressRecord ofA = new ProgressRecord("a", "a1", START,
				List.of(new LearnerProgress("0_1", 900, 100, false, Optional.empty()),
						new LearnerProgress("0_2", 10, 100, true, Optional.of(Duration.ZERO)),
						new LearnerProgress("0_9", 50_000, 100, false, Optional.empty())));

		assertThat(DrainStallWatch.notReady(Set.of(new TaskId(0, 1), new TaskId(0, 2), new TaskId(0, 3)),
				List.of(ofA)))
			.as("0_2 is ready, 0_3 has no report, 0_9 is another member's")
			.containsOnly(Map.entry("0_1", Optional.of(900L)), Map.entry("0_3", Optional.empty()));
	}

}
