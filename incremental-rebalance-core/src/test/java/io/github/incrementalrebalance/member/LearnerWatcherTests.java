package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import ch.qos.logback.classic.Level;
import io.github.incrementalrebalance.control.ControlState;
import io.github.incrementalrebalance.control.LeaveRecord;
import io.github.incrementalrebalance.control.PlanEpoch;
import io.github.incrementalrebalance.control.PlanRecord;
import io.github.incrementalrebalance.control.ProgressRecord;
import io.github.incrementalrebalance.identity.MemberIdentity;
import io.github.incrementalrebalance.planner.StartId;
import io.github.incrementalrebalance.planner.LearnerRebalance;
import io.github.incrementalrebalance.planner.RebalancingMode;
import io.github.incrementalrebalance.testkit.LogCapture;
import io.github.incrementalrebalance.testkit.MemberPlanBuilder;
import io.github.incrementalrebalance.testkit.MutableClock;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The learner watcher against plans the test writes: the leader's view of a learner's lag and the member's own can
 * disagree, and that must not turn into a rebalance every few seconds that moves nothing.
 */
class LearnerWatcherTests {

	private static final Duration SPACING = Duration.ofSeconds(1);

	private static final Duration PROBE_INTERVAL = Duration.ofSeconds(30);

	private final MutableClock clock = new MutableClock(Instant.parse("2026-12-02T10:00:00Z"));

	private final MemberIdentity identity = MemberIdentity.newIncarnation("c", RebalancingMode.INCREMENTAL,
			this.clock.instant());

	private final Plans plans = new Plans();

	private final RebalanceTrigger trigger = new RebalanceTrigger();

	private volatile long localLag;

	private final LearnerWatcher watcher = new LearnerWatcher(this.identity, this.plans,
			() -> Map.of(new TaskId(0, 1), this.localLag), this.trigger, 1_000, LearnerRebalance.EAGER, SPACING,
			PROBE_INTERVAL, this.clock);

	/**
	 * The member reads its learner at lag 100 (ready: at most 500), the leader reads it at 5 000 at every assignment
	 * (the changelog is written about as fast as it restores). Each ask starts a round that moves nothing. Before, the
	 * member asked once per plan and spacing, 600 rounds in ten minutes; now it learns by how much the leader's view
	 * is behind and backs off to the leader's probe interval.
	 */
	@Test
	void learnerTheLeaderReadsNotReadyRoundAfterRoundIsNotAskedForEverySpacing() {
		this.localLag = 100;
		this.plans.publish(learner(5_000, false));
		try (LogCapture log = LogCapture.of(LearnerWatcher.class)) {
			for (int tick = 0; tick < 1_200; tick++) {
				long asked = this.trigger.requestedCount();
				this.watcher.check();
				if (this.trigger.requestedCount() > asked) {
					// the round asked for: the leader reads the learner behind again
					this.plans.publish(learner(5_000, false));
				}
				this.clock.advance(Duration.ofMillis(500));
			}
			assertThat(this.trigger.requestedCount()).as("rounds asked for in ten minutes: about one per probe interval")
				.isBetween(Duration.ofMinutes(10).dividedBy(PROBE_INTERVAL) / 2,
						Duration.ofMinutes(10).dividedBy(PROBE_INTERVAL) + 5);
			assertThat(log.messages(Level.INFO)).anySatisfy((message) -> assertThat(message)
				.contains("shows learners [0_1] not ready").contains("by {0_1=4900}"));
		}
	}

	/**
	 * Once the member's lag is lower by what the leader's view was behind, it asks again without waiting out the
	 * back-off; a round that promotes the learner resets what it learnt, so the next learner is asked for without one.
	 */
	@Test
	void learnerAheadByWhatTheLeaderMissedIsAskedForAndAPromotionForgetsTheBackOff() {
		this.localLag = 400;
		this.plans.publish(learner(400, false));
		this.watcher.check();
		assertThat(this.trigger.requestedCount()).isEqualTo(1);
		this.plans.publish(learner(700, false));
		this.clock.advance(SPACING);
		this.watcher.check();
		assertThat(this.trigger.requestedCount()).as("the leader read 300 more: 400 + 300 > 500, backing off 2 s")
			.isEqualTo(1);

		this.localLag = 150;
		this.watcher.check();
		assertThat(this.trigger.requestedCount()).as("150 + 300 <= 500").isEqualTo(2);
		this.plans.publish(learner(120, true));
		this.clock.advance(SPACING);
		this.watcher.check();
		assertThat(this.trigger.requestedCount()).as("ready in the plan: nothing to ask").isEqualTo(2);

		this.localLag = 450;
		this.plans.publish(learner(450, false));
		this.watcher.check();
		assertThat(this.trigger.requestedCount()).as("a new learner, asked for at once").isEqualTo(3);
	}

	/**
	 * The leader read the learner 2 200 behind what the member did (the old owner was still working off a backlog, its
	 * changelog growing as fast as the learner restored); the member's lag can never get that much lower than 100. It
	 * asks again once the doubled spacing passed, and the leader, the backlog gone, promotes it. (Before, it waited
	 * for the lag until it forgot what it learnt, a probe interval later: a hand-over stalled for minutes.)
	 */
	@Test
	void learnerTheLeaderOnceReadFarBehindIsAskedForAgainOnceTheBackOffPassed() {
		this.localLag = 100;
		this.plans.publish(learner(2_500, false));
		this.watcher.check();
		this.plans.publish(learner(2_300, false));
		this.clock.advance(SPACING);
		this.watcher.check();
		assertThat(this.trigger.requestedCount()).as("within the back-off").isEqualTo(1);

		this.clock.advance(SPACING);
		this.watcher.check();

		assertThat(this.trigger.requestedCount()).as("the back-off of one unanswered ask passed").isEqualTo(2);
		this.plans.publish(learner(90, true));
		this.clock.advance(PROBE_INTERVAL);
		this.watcher.check();
		assertThat(this.trigger.requestedCount()).as("promoted: nothing more to ask").isEqualTo(2);
	}

	/**
	 * The member completed generation 3 before the leader published that generation's plan (it publishes once its own
	 * consumer completed it): the plan read is generation 2's, its learner not ready there. Asking now would start a
	 * round that moves nothing, holding every member, one handing over to leave among them (seen in the scale-in
	 * benchmark: a leaver caught in such a round closed a round later). It waits for generation 3's plan, which shows
	 * the learner ready; a leader that publishes none is waited for at most the spacing.
	 */
	@Test
	void learnerIsNotAskedForWhileThePlanOfAGenerationTheMemberCompletedIsOnItsWay() {
		this.localLag = 100;
		this.plans.publish(learner(5_000, false));
		this.trigger.generationCompleted(this.plans.generation + 1);
		this.watcher.check();
		this.clock.advance(SPACING.dividedBy(2));
		this.watcher.check();
		assertThat(this.trigger.requestedCount()).as("generation 3's plan is on its way").isZero();

		this.plans.publish(learner(100, true));
		this.clock.advance(SPACING);
		this.watcher.check();
		assertThat(this.trigger.requestedCount()).as("ready in the plan that came: nothing to ask").isZero();

		this.plans.publish(learner(5_000, false));
		this.trigger.generationCompleted(this.plans.generation + 1);
		this.watcher.check();
		assertThat(this.trigger.requestedCount()).as("waiting for generation 5's plan").isZero();
		this.clock.advance(SPACING);
		this.watcher.check();
		assertThat(this.trigger.requestedCount()).as("no plan came within the spacing: asked").isEqualTo(1);
	}

	private PlanRecord learner(long leaderLag, boolean ready) {
		MemberPlanBuilder plan = MemberPlanBuilder.plan("c", this.identity.incarnation()).active("0_2");
		return (ready ? plan.ready("0_1", leaderLag) : plan.learning("0_1", leaderLag))
			.record(this.plans.generation + 1);
	}

	/**
	 * One member's plans, newest only.
	 */
	private static final class Plans implements ControlState {

		private volatile PlanRecord plan;

		private volatile int generation = 1;

		void publish(PlanRecord next) {
			this.plan = next;
			this.generation = next.generation();
		}

		@Override
		public Optional<LeaveRecord> leaveRecord(String instanceId, String incarnation) {
			return Optional.empty();
		}

		@Override
		public Optional<PlanRecord> plan(String instanceId, String incarnation) {
			return Optional.ofNullable(this.plan).filter((held) -> held.incarnation().equals(incarnation));
		}

		@Override
		public List<PlanRecord> plans() {
			return Optional.ofNullable(this.plan).stream().toList();
		}

		@Override
		public Optional<PlanEpoch> planEpoch() {
			return Optional.ofNullable(this.plan)
				.map((held) -> new PlanEpoch(held.generation(), held.generation() - 1, "a", Instant.EPOCH, "", List.of()));
		}

		@Override
		public List<ProgressRecord> progress() {
			return List.of();
		}

		@Override
		public Optional<ProgressRecord> progressOf(StartId start) {
			return Optional.empty();
		}

	}

}
