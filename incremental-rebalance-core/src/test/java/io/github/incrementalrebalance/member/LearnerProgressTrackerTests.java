package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.github.incrementalrebalance.control.ProgressRecord.LearnerProgress;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class LearnerProgressTrackerTests {

	private static final Instant START = Instant.parse("2026-12-01T10:00:00Z");

	private static final TaskId TASK = new TaskId(0, 1);

	private final LearnerProgressTracker tracker = new LearnerProgressTracker(1_000);

	@Test
	void aSteadyRestoreGetsItsRateAndTheTimeUntilTheLagIsHalfTheAcceptableLag() {
		sample(0, 100_000);
		LearnerProgress progress = sample(2_000, 80_000);
		assertThat(progress.recordsPerSecond()).isCloseTo(10_000, within(0.1));
		assertThat(progress.ready()).isFalse();
		assertThat(progress.eta()).as("(80 000 - 500) records at 10 000 a second").contains(Duration.ofMillis(7_950));
	}

	@Test
	void noRateFromSamplesLessThanASecondApartNorFromALagThatDoesNotFall() {
		sample(0, 100_000);
		assertThat(sample(500, 95_000).eta()).as("half a second tells batch boundaries, not a rate").isEmpty();
		assertThat(sample(1_500, 95_000).recordsPerSecond()).isCloseTo(3_333.3, within(0.1));
		assertThat(sample(12_000, 95_000).eta()).as("a restore that stalled for the whole window").isEmpty();
		assertThat(sample(13_500, 96_000).recordsPerSecond()).as("the active task writes faster than it restores")
			.isZero();
	}

	@Test
	void theRateFollowsTheLastTenSecondsOnly() {
		sample(0, 200_000);
		sample(10_000, 100_000);
		sample(15_000, 95_000);
		LearnerProgress progress = sample(20_000, 90_000);
		assertThat(progress.recordsPerSecond()).as("1 000 a second since 10 s, where it was 10 000 before")
			.isCloseTo(1_000, within(0.1));
	}

	@Test
	void aLearnerWaitingForTheMembersRestoreGetsTheTimeAllOfItsLearnersTakeAtTheMembersRate() {
		TaskId queued = new TaskId(1, 0);
		this.tracker.sample(START, Set.of(TASK, queued), Map.of(TASK, 20_000L, queued, 20_000L));
		List<LearnerProgress> progress = this.tracker.sample(START.plusSeconds(2), Set.of(TASK, queued),
				Map.of(TASK, 19_000L, queued, 20_000L));
		assertThat(progress.get(0).eta()).as("(19 000 - 500) records at 500 a second")
			.contains(Duration.ofMillis(37_000));
		assertThat(progress.get(1).recordsPerSecond()).isZero();
		assertThat(progress.get(1).eta()).as("(18 500 + 19 500) records at the member's 500 a second")
			.contains(Duration.ofMillis(76_000));
	}

	@Test
	void aLearnerThatWaitedForAnotherGetsTheRateSinceItsOwnRestoreStarted() {
		sample(0, 20_000);
		sample(3_000, 20_000);
		sample(6_000, 20_400);
		sample(7_000, 17_900);
		LearnerProgress progress = sample(9_000, 12_900);
		assertThat(progress.recordsPerSecond()).as("7 500 records in 3 s since 20 400; the wait is not a slow restore")
			.isCloseTo(2_500, within(0.1));
		assertThat(progress.eta()).as("(12 900 - 500) records at 2 500 a second").contains(Duration.ofMillis(4_960));
	}

	@Test
	void aRestoreSlowerThanTheWritesHasNoRateAlthoughItsLagSometimesFalls() {
		sample(0, 10_000);
		sample(2_000, 12_000);
		sample(3_000, 11_000);
		assertThat(sample(4_000, 11_500).eta()).as("the lag grew over the window, though it fell since 2 s").isEmpty();
	}

	@Test
	void aLearnerWithinHalfTheAcceptableLagIsReadyNow() {
		sample(0, 10_000);
		LearnerProgress progress = sample(1_000, 400);
		assertThat(progress.ready()).isTrue();
		assertThat(progress.eta()).contains(Duration.ZERO);
	}

	@Test
	void learnersWithoutALagAreLeftOutAndLearnersNoLongerPlannedAreForgotten() {
		TaskId other = new TaskId(1, 0);
		assertThat(this.tracker.sample(START, Set.of(TASK, other), Map.of(TASK, 5_000L))).extracting(LearnerProgress::task)
			.containsExactly("0_1");
		this.tracker.sample(START.plusSeconds(1), Set.of(other), Map.of(other, 5_000L));
		List<LearnerProgress> again = this.tracker.sample(START.plusSeconds(2), Set.of(TASK), Map.of(TASK, 3_000L));
		assertThat(again.get(0).eta()).as("a learner planned again starts a new window").isEqualTo(Optional.empty());
	}

	private LearnerProgress sample(long atMillis, long lag) {
		return this.tracker.sample(START.plusMillis(atMillis), Set.of(TASK), Map.of(TASK, lag)).get(0);
	}

}
