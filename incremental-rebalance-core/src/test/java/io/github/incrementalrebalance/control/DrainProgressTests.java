package io.github.incrementalrebalance.control;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.github.incrementalrebalance.control.ProgressRecord.LearnerProgress;
import io.github.incrementalrebalance.testkit.MemberPlanBuilder;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DrainProgressTests {

	private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");

	private final PlanRecord leaving = plan("a").beingLearned("0_0", "0_1").leaving("l1").record(7);

	@Test
	void aDrainEndsWhenItsSlowestLearnerIsReady() {
		List<PlanRecord> plans = List.of(this.leaving, plan("b").active("0_2").learning("0_0", 9_000).record(7),
				plan("c").active("0_3").learning("0_1", 9_000).record(7));
		List<ProgressRecord> progress = List.of(progress("b", NOW.minusSeconds(1), learner("0_0", 4_000, 12)),
				progress("c", NOW, learner("0_1", 8_000, 30)));
		DrainProgress drain = only(DrainProgress.of(plans, progress, Map.of(), NOW));
		assertThat(drain.tasks()).containsExactly("0_0", "0_1");
		assertThat(drain.learnersReady()).isZero();
		assertThat(drain.slowestTask()).contains("0_1");
		assertThat(drain.readyAt()).contains(NOW.plusSeconds(30));
		assertThat(drain.eta()).contains(NOW.plusSeconds(30));
	}

	@Test
	void aDeadlineBeforeTheSlowestLearnerEndsTheDrainFirst() {
		List<PlanRecord> plans = List.of(this.leaving,
				plan("b").ready("0_0", 9_000).learning("0_1", 9_000).record(7));
		LeaveRecord leave = LeaveRecord.request("a", "a-1", NOW.minusSeconds(10), Optional.of(Duration.ofSeconds(20)),
				"test");
		DrainProgress drain = only(DrainProgress.of(plans, List.of(progress("b", NOW, learner("0_1", 8_000, 60))),
				Map.of("a", leave), NOW));
		assertThat(drain.learnersReady()).as("0_0 is ready in the plan").isOne();
		assertThat(drain.readyAt()).contains(NOW.plusSeconds(60));
		assertThat(drain.deadline()).contains(NOW.plusSeconds(10));
		assertThat(drain.eta()).contains(NOW.plusSeconds(10));
	}

	@Test
	void aLearnerWithoutAnEtaLeavesTheDrainsEtaUnknownUnlessItHasADeadline() {
		List<PlanRecord> plans = List.of(this.leaving,
				plan("b").learning("0_0", 9_000).learning("0_1", 9_000).record(7));
		List<ProgressRecord> progress = List.of(progress("b", NOW, learner("0_0", 8_000, 60),
				new LearnerProgress("0_1", 9_000, 0, false, Optional.empty())));
		DrainProgress drain = only(DrainProgress.of(plans, progress, Map.of(), NOW));
		assertThat(drain.slowestTask()).isEmpty();
		assertThat(drain.eta()).isEmpty();
		assertThat(DrainProgress.of(plans, List.of(), Map.of(), NOW)).as("no progress published yet").singleElement()
			.satisfies((unknown) -> assertThat(unknown.eta()).isEmpty());
	}

	@Test
	void onlyLeavingMembersDrain() {
		assertThat(DrainProgress.of(List.of(plan("b").active("0_0").record(7)), List.of(), Map.of(), NOW)).isEmpty();
	}

	private static DrainProgress only(List<DrainProgress> drains) {
		assertThat(drains).hasSize(1);
		return drains.get(0);
	}

	private static LearnerProgress learner(String task, long lag, long etaSeconds) {
		return new LearnerProgress(task, lag, lag / (double) etaSeconds, false,
				Optional.of(Duration.ofSeconds(etaSeconds)));
	}

	private static ProgressRecord progress(String instanceId, Instant at, LearnerProgress... learners) {
		return new ProgressRecord(instanceId, instanceId + "-1", at, List.of(learners));
	}

	private static MemberPlanBuilder plan(String instanceId) {
		return MemberPlanBuilder.plan(instanceId, instanceId + "-1");
	}

}
