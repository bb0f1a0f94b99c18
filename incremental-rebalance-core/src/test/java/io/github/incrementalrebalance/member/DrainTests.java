package io.github.incrementalrebalance.member;


import java.time.Duration;
import java.time.Instant;


import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import ch.qos.logback.classic.Level;
import io.github.incrementalrebalance.identity.MemberIdentity;
import io.github.incrementalrebalance.planner.StartId;
import io.github.incrementalrebalance.planner.HandOverReason;
import io.github.incrementalrebalance.planner.RebalancingMode;
import io.github.incrementalrebalance.testkit.MemberPlanBuilder;
import io.github.incrementalrebalance.config.Backoff;
import io.github.incrementalrebalance.control.ControlRecord;
import io.github.incrementalrebalance.control.ControlState;
import io.github.incrementalrebalance.control.ControlWriteException;
import io.github.incrementalrebalance.control.ControlWriter;
import io.github.incrementalrebalance.control.LeaveRecord;
import io.github.incrementalrebalance.control.PlanEpoch;
import io.github.incrementalrebalance.control.PlanRecord;
import io.github.incrementalrebalance.control.ProgressRecord;
import io.github.incrementalrebalance.control.ProgressRecord.LearnerProgress;
import io.github.incrementalrebalance.testkit.LogCapture;
import io.github.incrementalrebalance.testkit.MutableClock;
import org.apache.kafka.clients.consumer.CloseOptions.GroupMembershipOperation;
import org.apache.kafka.common.errors.AuthorizationException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The leave state machine against an in-memory control topic and a clock the test moves.
 */
class DrainTests {

	private static final Duration STALL = Duration.ofMinutes(1);

	/** The group's session timeout. */
	private static final Duration SESSION = Duration.ofSeconds(45);

	/** The member's elapsed time. */
	private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T12:00:00Z"));

	/** The wall clock: elapsed time, plus the steps NTP made. */
	private final MutableClock wall = MutableClock.following(this.clock);

	private final MemberIdentity identity = MemberIdentity.newIncarnation("b", RebalancingMode.INCREMENTAL,
			this.clock.instant());

	private final InMemoryControl control = new InMemoryControl();

	private final RebalanceTrigger trigger = new RebalanceTrigger();

	private final LeaveOnClose leaveOnClose = new LeaveOnClose();

	private final AtomicInteger streamsClosed = new AtomicInteger();

	private final List<MemberState> states = new CopyOnWriteArrayList<>();

	private final GroupMembership membership = new GroupMembership();

	/** Open: Kafka Streams close at once; a test that looks at the member while it closes holds it. */
	private volatile CountDownLatch closeMayFinish = new CountDownLatch(0);

	/** Kafka Streams closing: the main consumer leaves the group first, then the rest closes (when the test lets it). */
	private final Drain drain = drain(new LeaveBounds(Duration.ofSeconds(10), false, STALL, SESSION));

	/**
	 * A drain of this member with its own bounds (the field has the default: wait, here 10 s for an answer).
	 */
	private Drain drain(LeaveBounds bounds) {
		return new Drain(this.identity, this.control, this.control, this.trigger, this.leaveOnClose,
				new GroupExit(this.identity, this.control, this.control, this.membership, this::closeStreams,
						Duration.ofSeconds(5), Backoff.doubling(Duration.ofMillis(50), Duration.ofMillis(200))),
				() -> 3, bounds, new MemberClocks(this.wall, this.clock), Optional.empty());
	}

	private void closeStreams() {
		this.membership.consumerClosed(this.leaveOnClose.operation(false, GroupMembershipOperation.DEFAULT));
		try {
			this.closeMayFinish.await(5, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.streamsClosed.incrementAndGet();
	}

	@BeforeEach
	void recordStates() {
		this.membership.consumerOpened();
		this.drain.addStateListener(this.states::add);
	}

	@Test
	void leaveWritesTheRequestWithAnIdentityAndAsksForARebalanceOnce() {
		assertThat(this.drain.leave(Optional.of(Duration.ofMinutes(1)), "test", true)).isTrue();
		assertThat(this.drain.leave(Optional.empty(), "test", true)).as("a repeat").isFalse();

		assertThat(this.drain.state()).isEqualTo(MemberState.LEAVING);
		LeaveRecord written = this.control.leaves.get("b");
		assertThat(written.incarnation()).isEqualTo(this.identity.incarnation());
		assertThat(written.leaveId()).isNotBlank();
		assertThat(written.timeout()).contains(Duration.ofMinutes(1));
		assertThat(this.drain.deadline()).contains(this.clock.instant().plus(Duration.ofMinutes(1)));
		assertThat(this.trigger.requestedCount()).isEqualTo(1);
	}

	@Test
	void leaveNoPlanAcknowledgesYetIsAskedAgainWithBackOff() {
		this.drain.leave(Optional.empty(), "test", true);
		this.control.epoch(1);
		for (int second = 1; second <= 8; second++) {
			this.clock.advance(Duration.ofSeconds(1));
			this.trigger.generationCompleted(-1);
			this.drain.check();
		}
		assertThat(this.trigger.requestedCount()).as("at 1 s, 3 s and 7 s after the request, then every 8 s")
			.isEqualTo(4);
		this.control.plan(plan(leaveId(), Optional.empty()));
		this.clock.advance(Duration.ofSeconds(8));
		this.drain.check();
		assertThat(this.trigger.requestedCount()).as("acknowledged: no more retries").isEqualTo(4);
		assertThat(this.drain.state()).isEqualTo(MemberState.LEAVING);
	}

	@Test
	void handOverToReadyLearnersIsTheOnlyDrainedOutcome() {
		this.closeMayFinish = new CountDownLatch(1);
		this.drain.leave(Optional.empty(), "test", true);
		this.drain.check();
		this.control.plan(plan(leaveId(), Optional.of(HandOverReason.LEARNERS_READY)));

		this.drain.check();

		await("how the leave ended, recorded once the member is out of the group").atMost(Duration.ofSeconds(5))
			.until(() -> this.control.leaves.get("b").ended().isPresent());
		assertThat(this.control.leaves.get("b").ended()).contains(new LeaveRecord.Ended("drained", "learners-ready", 0));
		assertThat(this.streamsClosed).as("Kafka Streams still closing: the others need not wait for it").hasValue(0);
		assertThat(this.drain.state()).isEqualTo(MemberState.DRAINED);
		this.closeMayFinish.countDown();

		await().atMost(Duration.ofSeconds(5)).until(() -> this.drain.state() == MemberState.CLOSED);
		assertThat(this.streamsClosed).hasValue(1);
		assertThat(this.leaveOnClose.isDrained()).isTrue();
		assertThat(this.states).endsWith(MemberState.DRAINED, MemberState.CLOSED);
		assertThat(this.drain.outcome()).contains(DrainOutcome.of(DrainOutcome.Reason.LEARNERS_READY, 0));
	}

	/**
	 * The control topic refuses writes when the member is out of the group (the cluster restarting): the end is written
	 * again, under the back-off, until the topic takes it; before, the one failed write was a WARN and no member ever
	 * learnt how the leave ended. Once the leave record no longer waits for an end (here the leader recorded one),
	 * nothing is written again.
	 */
	@Test
	void anEndTheControlTopicRefusedIsWrittenAgainUntilItLands() {
		try (LogCapture log = LogCapture.of(GroupExit.class)) {
			handOverWithItsEndRefused(log);
			await("the member closed").atMost(Duration.ofSeconds(5))
				.until(() -> this.drain.state() == MemberState.CLOSED);
			assertThat(this.control.leaves.get("b").pending()).isTrue();

			this.control.failWrites = false;

			await("the end written once the control topic takes it").atMost(Duration.ofSeconds(5))
				.until(() -> this.control.leaves.get("b").ended().isPresent());
			assertThat(this.control.leaves.get("b").ended()).contains(new LeaveRecord.Ended("drained", "learners-ready", 0));
			assertThat(log.messages(Level.INFO)).anySatisfy((message) -> assertThat(message)
				.startsWith("Recorded how the leave of b ended on the control topic, at attempt"));
		}
	}

	@Test
	void anEndTheLeaderRecordedMeanwhileIsNotWrittenAgain() {
		try (LogCapture log = LogCapture.of(GroupExit.class)) {
			handOverWithItsEndRefused(log);
			LeaveRecord killed = this.control.leaves.get("b")
				.endedAs(new LeaveRecord.Ended(LeaveRecord.Ended.KILLED, LeaveRecord.Ended.NO_END_RECORDED, 0));
			this.control.leaves.put("b", killed);

			await("given up").atMost(Duration.ofSeconds(5)).until(() -> log.messages(Level.WARN).stream()
				.anyMatch((message) -> message.contains("will not try again")));
			this.control.failWrites = false;
			await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(1))
				.until(() -> this.control.leaves.get("b").equals(killed));
		}
	}

	/**
	 * Leave, and hand over to ready learners while the control topic refuses every write, until the member said it
	 * writes its end again.
	 */
	private void handOverWithItsEndRefused(LogCapture log) {
		this.drain.leave(Optional.empty(), "test", true);
		this.drain.check();
		this.control.plan(plan(leaveId(), Optional.of(HandOverReason.LEARNERS_READY)));
		this.control.failWrites = true;
		this.drain.check();
		await("the end refused, to be written again").atMost(Duration.ofSeconds(5))
			.until(() -> log.messages(Level.WARN).stream().anyMatch((message) -> message.contains("writing it again")));
	}

	/**
	 * Kafka Streams' close returned while a stream thread had not stopped (its close timed out): the member is still in
	 * the group through that thread's consumer, so the others are not told it left, and it is not reported closed,
	 * until that consumer has left.
	 */
	@Test
	void aCloseThatReturnsWithAConsumerStillOpenEndsTheLeaveOnlyOnceItLeft() {
		this.membership.consumerOpened();
		this.drain.leave(Optional.empty(), "test", true);
		this.drain.check();
		this.control.plan(plan(leaveId(), Optional.of(HandOverReason.LEARNERS_READY)));

		this.drain.check();

		await("Kafka Streams closed").atMost(Duration.ofSeconds(5)).until(() -> this.streamsClosed.get() == 1);
		await("a stuck stream thread").during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
			.until(() -> this.control.leaves.get("b").ended().isEmpty() && this.drain.state() == MemberState.DRAINED);

		this.membership.consumerClosed(GroupMembershipOperation.LEAVE_GROUP);

		await("the end recorded once the last consumer left").atMost(Duration.ofSeconds(5))
			.until(() -> this.control.leaves.get("b").ended().isPresent() && this.drain.state() == MemberState.CLOSED);
	}

	@Test
	void aPlanForAnotherLeaveOfTheMemberIsNoAcknowledgement() {
		this.drain.leave(Optional.empty(), "test", true);
		this.control.plan(plan("an-earlier-leave", Optional.of(HandOverReason.LEARNERS_READY)));
		this.clock.advance(Duration.ofSeconds(1));
		this.drain.check();
		assertThat(this.drain.state()).isEqualTo(MemberState.LEAVING);
		assertThat(this.trigger.requestedCount()).as("asked again: not acknowledged").isEqualTo(2);
	}

	@Test
	void handOverReasonsOtherThanReadyLearnersSayWhatHappened() {
		assertOutcomeOfHandOver(HandOverReason.NO_OTHER_MEMBER, MemberState.LEFT_WITHOUT_LEARNERS,
				DrainOutcome.of(DrainOutcome.Reason.NO_OTHER_MEMBER, 3));
		assertOutcomeOfHandOver(HandOverReason.LEARNERS_UNAVAILABLE, MemberState.LEFT_WITHOUT_LEARNERS,
				DrainOutcome.of(DrainOutcome.Reason.MIXED_MODES, 3));
	}

	/**
	 * A leader of a newer version hands this member over for a reason this version does not know: the member hands
	 * over as told, drained when its plan's learners were ready, else forced with the tasks that were not, saying so.
	 */
	@Test
	void aHandOverForAReasonOfANewerVersionHandsOverAndSaysWhetherEveryLearnerWasReady() {
		assertOutcomeOfHandOver(HandOverReason.NOT_KNOWN, MemberState.FORCED,
				DrainOutcome.of(DrainOutcome.Reason.HANDED_OVER_BY_A_NEWER_LEADER, 1));

		this.drain.leave(Optional.empty(), "test", true);
		this.control.progress.add(new ProgressRecord("a", "a1", this.clock.instant(),
				List.of(new LearnerProgress("0_1", 10, 0, true, Optional.empty()))));
		this.control.plan(plan(leaveId(), Optional.of(HandOverReason.NOT_KNOWN)));
		this.drain.check();

		await().atMost(Duration.ofSeconds(5)).until(() -> this.drain.state() == MemberState.CLOSED);
		assertThat(this.states).endsWith(MemberState.DRAINED, MemberState.CLOSED);
		assertThat(this.drain.outcome()).contains(DrainOutcome.of(DrainOutcome.Reason.LEARNERS_READY, 0));
	}

	/**
	 * The group churned (sessions timed out under load, consumers fenced and rejoining) and this member led a round in
	 * which it was alone: the plan of that round hands it over with no other member, cold, though the member that was
	 * in the plan a second before, with a learner of its task, comes back. The hand-over is held, said why, and the
	 * round the other member is back in drains warm.
	 */
	@Test
	void aHandOverWithNoOtherMemberWaitsForTheMembersThatWereInThePlanLately() {
		try (LogCapture log = LogCapture.of(Drain.class)) {
			this.drain.leave(Optional.empty(), "test", true);
			planWithA(this.control.nextGeneration(), Optional.empty(), false);
			this.drain.check();
			this.control.plan(plan(leaveId(), Optional.of(HandOverReason.NO_OTHER_MEMBER)));

			this.drain.check();
			this.clock.advance(SESSION.minusMillis(1));
			this.drain.check();

			assertThat(this.drain.state()).as("a transient view of the group: held").isEqualTo(MemberState.LEAVING);
			assertThat(this.drain.waiting()).hasValueSatisfying((why) -> assertThat(why).contains("[a]", "45000 ms"));
			assertThat(log.messages(Level.WARN)).singleElement().asString().contains("holds its hand-over", "[a]");

			planWithA(this.control.nextGeneration(), Optional.of(HandOverReason.LEARNERS_READY), true);
			this.drain.check();

			await().atMost(Duration.ofSeconds(5)).until(() -> this.drain.state() == MemberState.CLOSED);
			assertThat(this.drain.outcome()).contains(DrainOutcome.of(DrainOutcome.Reason.LEARNERS_READY, 0));
		}
	}

	@Test
	void aHandOverWithNoOtherMemberLeavesOnceTheOthersStayedOutOfThePlanForTheSessionTimeout() {
		this.drain.leave(Optional.empty(), "test", true);
		planWithA(this.control.nextGeneration(), Optional.empty(), false);
		this.drain.check();
		this.control.plan(plan(leaveId(), Optional.of(HandOverReason.NO_OTHER_MEMBER)));
		this.drain.check();
		assertThat(this.drain.state()).isEqualTo(MemberState.LEAVING);

		this.clock.advance(SESSION);
		this.drain.check();

		await().atMost(Duration.ofSeconds(5)).until(() -> this.drain.state() == MemberState.CLOSED);
		assertThat(this.drain.outcome()).contains(DrainOutcome.of(DrainOutcome.Reason.NO_OTHER_MEMBER, 3));
	}

	/**
	 * A plan of one generation with member a, learning this member's task 0_1, and this member leaving.
	 */
	private void planWithA(int generation, Optional<HandOverReason> handOver, boolean ready) {
		MemberPlanBuilder a = MemberPlanBuilder.plan("a", "a1");
		this.control.plans.put("a", (ready ? a.ready("0_1", 0) : a.learning("0_1", 5_000)).record(generation));
		this.control.plan(MemberPlanBuilder.plan("b", this.identity.incarnation())
			.beingLearned("0_1")
			.leaving(leaveId())
			.handOver(handOver)
			.record(generation));
	}

	private void assertOutcomeOfHandOver(HandOverReason handOver, MemberState state, DrainOutcome outcome) {
		DrainTests test = new DrainTests();
		test.drain.addStateListener(test.states::add);
		test.drain.leave(Optional.empty(), "test", true);
		test.control.plan(test.plan(test.leaveId(), Optional.of(handOver)));
		test.drain.check();
		await().atMost(Duration.ofSeconds(5)).until(() -> test.drain.state() == MemberState.CLOSED);
		assertThat(test.states).as(handOver.name()).endsWith(state, MemberState.CLOSED);
		assertThat(test.drain.outcome()).as(handOver.name()).contains(outcome);
	}

	@Test
	void deadlineOnTheMembersOwnClockForcesTheLeaveAndCountsTheTasksStillBeingLearned() {
		this.drain.leave(Optional.of(Duration.ofSeconds(30)), "test", true);
		this.control.plan(plan(leaveId(), Optional.empty()));
		this.clock.advance(Duration.ofSeconds(29));
		this.drain.check();
		assertThat(this.drain.state()).isEqualTo(MemberState.LEAVING);

		this.clock.advance(Duration.ofSeconds(1));
		this.drain.check();

		await().atMost(Duration.ofSeconds(5)).until(() -> this.drain.state() == MemberState.CLOSED);
		assertThat(this.states).endsWith(MemberState.FORCED, MemberState.CLOSED);
		assertThat(this.drain.outcome()).contains(DrainOutcome.of(DrainOutcome.Reason.DEADLINE_PASSED, 1));
	}

	@Test
	void aForcedLeaveCountsAsColdOnlyTheTasksWhoseLearnerIsNotReady() {
		this.drain.leave(Optional.of(Duration.ofSeconds(30)), "test", true);
		this.control.plan(MemberPlanBuilder.plan("b", this.identity.incarnation())
			.beingLearned("0_1", "0_2")
			.leaving(leaveId())
			.record(this.control.nextGeneration()));
		this.control.progress.add(new ProgressRecord("a", "a1", this.clock.instant(),
				List.of(new LearnerProgress("0_1", 10, 0, true, Optional.empty()),
						new LearnerProgress("0_2", 40_000, 0, false, Optional.empty()))));

		this.clock.advance(Duration.ofSeconds(30));
		this.drain.check();

		await().atMost(Duration.ofSeconds(5)).until(() -> this.drain.state() == MemberState.CLOSED);
		assertThat(this.drain.outcome()).as("0_1's learner is ready: it takes the task over warm")
			.contains(DrainOutcome.of(DrainOutcome.Reason.DEADLINE_PASSED, 1));
	}

	/**
	 * NTP steps the wall clock an hour forward, then back, during a leave with a 30 s timeout: neither forces it, nor
	 * holds it past its timeout, and the deadline an operator reads moves with the wall clock.
	 */
	@Test
	void wallClockStepsNeitherForceTheLeaveEarlyNorHoldIt() {
		this.drain.leave(Optional.of(Duration.ofSeconds(30)), "test", true);
		this.control.plan(plan(leaveId(), Optional.empty()));
		Instant shownBefore = this.drain.deadline().orElseThrow();

		this.wall.advance(Duration.ofHours(1));
		this.clock.advance(Duration.ofSeconds(10));
		this.drain.check();
		assertThat(this.drain.state()).as("10 s of its 30 s passed").isEqualTo(MemberState.LEAVING);
		assertThat(this.drain.outcome()).isEmpty();
		assertThat(this.drain.deadline()).as("shown on the wall clock").contains(shownBefore.plus(Duration.ofHours(1)));
		assertThat(this.drain.waiting()).isEmpty();

		this.wall.advance(Duration.ofHours(-2));
		this.clock.advance(Duration.ofSeconds(20));
		this.drain.check();

		await().atMost(Duration.ofSeconds(5)).until(() -> this.drain.state() == MemberState.CLOSED);
		assertThat(this.drain.outcome()).contains(DrainOutcome.of(DrainOutcome.Reason.DEADLINE_PASSED, 1));
	}

	@Test
	void requestFromAMachineWhoseClockIsThirtySecondsBehindKeepsItsFullTimeoutAndIsNotUnansweredAtOnce() {
		Instant skewed = this.clock.instant().minus(Duration.ofSeconds(30));
		this.control.leaves.put("b", LeaveRecord.request("b", this.identity.incarnation(), skewed,
				Optional.of(Duration.ofSeconds(20)), "cli"));
		this.drain.check();
		assertThat(this.drain.state()).isEqualTo(MemberState.LEAVING);
		assertThat(this.drain.deadline()).as("20 s from when this member read the request, on its own clock")
			.contains(this.clock.instant().plus(Duration.ofSeconds(20)));
		this.clock.advance(Duration.ofSeconds(1));
		this.drain.check();
		assertThat(this.drain.state()).as("neither past its deadline nor unanswered").isEqualTo(MemberState.LEAVING);
	}

	/**
	 * A plan answered the leave, and the plan of a later generation no longer acts on it (a new leader that did not
	 * read it): the leave asks the group again at once, and says it waits past its bound, instead of waiting silently
	 * for a hand-over nobody plans.
	 */
	@Test
	void leaveAPlanAnsweredAndALaterPlanDropsAsksAgainAndSaysItWaits() {
		try (LogCapture log = LogCapture.of(LeaveAcknowledgement.class)) {
			this.drain.leave(Optional.empty(), "test", true);
			this.control.plan(plan(leaveId(), Optional.empty()));
			this.clock.advance(Duration.ofSeconds(30));
			this.drain.check();
			long asked = this.trigger.requestedCount();
			assertThat(this.drain.waiting()).as("answered").isEmpty();

			this.control.plan(MemberPlanBuilder.plan("b", this.identity.incarnation())
				.beingLearned("0_1")
				.record(this.control.nextGeneration()));
			this.drain.check();
			assertThat(this.trigger.requestedCount()).as("asked again at once").isEqualTo(asked + 1);
			assertThat(log.messages(Level.WARN)).singleElement().asString()
				.contains("no longer acts on leave " + leaveId() + " of b").contains("asking the group again");
			for (int second = 1; second <= 10; second++) {
				this.clock.advance(Duration.ofSeconds(1));
				this.drain.check();
			}
			assertThat(this.drain.state()).isEqualTo(MemberState.LEAVING);
			assertThat(this.drain.waiting()).as("unanswered again, past its bound")
				.hasValueSatisfying((why) -> assertThat(why).contains("no plan has acknowledged it"));

			this.control.plan(plan(leaveId(), Optional.of(HandOverReason.LEARNERS_READY)));
			this.drain.check();
			await().atMost(Duration.ofSeconds(5)).until(() -> this.drain.state() == MemberState.CLOSED);
			assertThat(this.drain.outcome()).contains(DrainOutcome.of(DrainOutcome.Reason.LEARNERS_READY, 0));
		}
	}

	/**
	 * Each ask is a rebalance of the whole group: past its acknowledgement bound (the group's rebalance timeout by
	 * default) a leave still asks, but backs off up to that bound instead of rebalancing the group every 8 s for ever.
	 */
	@Test
	void leaveUnansweredPastItsBoundAsksBackingOffUpToTheBound() {
		Drain leaving = drain(new LeaveBounds(Duration.ofMinutes(1), false, STALL, SESSION));
		leaving.leave(Optional.empty(), "test", true);
		List<Long> askedAt = new ArrayList<>();
		long asked = this.trigger.requestedCount();
		for (int second = 1; second <= 600; second++) {
			this.clock.advance(Duration.ofSeconds(1));
			leaving.check();
			if (this.trigger.requestedCount() > asked) {
				asked = this.trigger.requestedCount();
				askedAt.add((long) second);
			}
		}
		assertThat(leaving.state()).isEqualTo(MemberState.LEAVING);
		assertThat(leaving.waiting()).isPresent();
		assertThat(askedAt).as("asked within its bound").filteredOn((second) -> second <= 60)
			.containsExactly(1L, 3L, 7L, 15L, 23L, 31L, 39L, 47L, 55L);
		assertThat(askedAt).as("then doubling up to the bound, where every 8 s made 68 more")
			.filteredOn((second) -> second > 60)
			.containsExactly(63L, 79L, 111L, 171L, 231L, 291L, 351L, 411L, 471L, 531L, 591L);
	}

	/**
	 * A slow rebalance (a member stuck in a slow call) answers late: the leave keeps asking and says why, and is still
	 * answered and drained.
	 */
	@Test
	void leaveNobodyAnswersKeepsAskingAndSaysWhyInsteadOfMovingItsTasksCold() {
		try (LogCapture log = LogCapture.of(LeaveAcknowledgement.class)) {
			this.drain.leave(Optional.empty(), "test", true);
			for (int second = 1; second <= 60; second++) {
				this.clock.advance(Duration.ofSeconds(1));
				this.drain.check();
				assertThat(this.drain.waiting().isPresent()).as("waiting said after %d s", second).isEqualTo(second >= 10);
			}
			assertThat(this.drain.state()).isEqualTo(MemberState.LEAVING);
			assertThat(this.drain.waiting().orElseThrow()).isEqualTo("unanswered for more than PT10S: no plan has "
					+ "acknowledged it; still asking");
			assertThat(this.trigger.requestedCount()).as("it keeps asking, every 8 s at most").isGreaterThan(8);
			assertThat(log.messages(Level.WARN)).singleElement().asString()
				.contains("The leave " + leaveId() + " of b is unanswered for more than PT10S")
				.contains("incremental.rebalance.leave.unanswered=leave");

			this.control.plan(plan(leaveId(), Optional.of(HandOverReason.LEARNERS_READY)));
			this.drain.check();
			await().atMost(Duration.ofSeconds(5)).until(() -> this.drain.state() == MemberState.CLOSED);
			assertThat(this.drain.outcome()).contains(DrainOutcome.of(DrainOutcome.Reason.LEARNERS_READY, 1));
			assertThat(this.drain.waiting()).isEmpty();
		}
	}

	@Test
	void rebalanceWithoutAPlanWaitsAsLongAsTheAcknowledgementTimeoutThenSaysSoAndKeepsAsking() {
		this.control.epoch(1);
		this.trigger.generationCompleted(4);
		this.drain.leave(Optional.empty(), "test", true);
		this.trigger.generationCompleted(5);
		this.drain.check();
		this.clock.advance(Duration.ofSeconds(5));
		this.drain.check();
		assertThat(this.drain.state()).as("a plan written slowly is still read in time").isEqualTo(MemberState.LEAVING);
		assertThat(this.drain.waiting()).isEmpty();

		this.clock.advance(Duration.ofSeconds(5));
		this.drain.check();

		assertThat(this.drain.state()).isEqualTo(MemberState.LEAVING);
		assertThat(this.drain.waiting().orElseThrow())
			.contains("the leader published no learner plan for generation 5, which completed after the request");
	}

	@Test
	void withLeaveUnansweredARebalanceWithoutAPlanEndsTheLeaveWithoutLearnersAndSaysSo() {
		Drain leaving = drain(new LeaveBounds(Duration.ofSeconds(2), true, STALL, SESSION));
		leaving.addStateListener(this.states::add);
		this.control.epoch(1);
		this.trigger.generationCompleted(4);
		leaving.leave(Optional.empty(), "test", true);
		this.trigger.generationCompleted(5);
		leaving.check();
		this.clock.advance(Duration.ofMillis(1_900));
		leaving.check();
		assertThat(leaving.state()).as("within the acknowledgement timeout").isEqualTo(MemberState.LEAVING);

		this.clock.advance(Duration.ofMillis(100));
		leaving.check();

		await().atMost(Duration.ofSeconds(5)).until(() -> leaving.state() == MemberState.CLOSED);
		assertThat(this.states).endsWith(MemberState.LEFT_WITHOUT_LEARNERS, MemberState.CLOSED)
			.doesNotContain(MemberState.DRAINED);
		assertThat(leaving.outcome()).contains(DrainOutcome.of(DrainOutcome.Reason.NO_LEARNER_PLAN, 3));
	}

	@Test
	void withLeaveUnansweredALeaveNobodyAcknowledgesEndsUnansweredOnTheMembersClock() {
		Drain leaving = drain(new LeaveBounds(Duration.ofSeconds(10), true, STALL, SESSION));
		leaving.leave(Optional.empty(), "test", true);
		for (int second = 1; second <= 10; second++) {
			this.clock.advance(Duration.ofSeconds(1));
			leaving.check();
		}
		await().atMost(Duration.ofSeconds(5)).until(() -> leaving.state() == MemberState.CLOSED);
		assertThat(leaving.outcome()).contains(DrainOutcome.of(DrainOutcome.Reason.UNANSWERED, 3));
	}

	@Test
	void memberInModeUpgradingLeavesAtOnceAndSaysWhy() {
		assertThat(this.drain.leave(Optional.empty(), "test", false)).isTrue();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.drain.state() == MemberState.CLOSED);
		assertThat(this.states).containsExactly(MemberState.LEAVING, MemberState.LEFT_WITHOUT_LEARNERS,
				MemberState.CLOSED);
		assertThat(this.drain.outcome()).contains(DrainOutcome.of(DrainOutcome.Reason.OWN_MODE_UPGRADING, 3));
	}

	@Test
	void leaveWrittenElsewhereIsFollowedAndOnlyItsCancelRecordCancelsIt() {
		LeaveRecord request = LeaveRecord.request("b", this.identity.incarnation(), this.clock.instant(),
				Optional.empty(), "cli");
		this.control.leaves.put("b", request);
		this.drain.check();
		assertThat(this.drain.state()).isEqualTo(MemberState.LEAVING);
		assertThat(this.trigger.requestedCount()).isEqualTo(1);

		this.control.leaves.remove("b");
		this.drain.check();
		assertThat(this.drain.state()).as("a record that disappeared is no cancel").isEqualTo(MemberState.LEAVING);
		await("written again").atMost(Duration.ofSeconds(5)).until(() -> request.equals(this.control.leaves.get("b")));

		this.control.leaves.put("b", request.cancel("cli"));
		this.drain.check();
		assertThat(this.drain.state()).isEqualTo(MemberState.STABLE);
		this.drain.check();
		assertThat(this.drain.state()).as("the cancelled request is not followed again").isEqualTo(MemberState.STABLE);
		assertThat(this.drain.outcome()).isEmpty();
	}

	@Test
	void leaveOfAnEarlierIncarnationIsIgnored() {
		this.control.leaves.put("b", LeaveRecord.request("b", "old", this.clock.instant(), Optional.empty(), "cli"));
		this.drain.check();
		assertThat(this.drain.state()).isEqualTo(MemberState.STABLE);
	}

	@Test
	void cancelWritesACancelRecordBeforeItStays() {
		this.drain.leave(Optional.empty(), "test", true);
		String leaveId = leaveId();
		assertThat(this.drain.cancel()).isTrue();
		assertThat(this.drain.state()).isEqualTo(MemberState.STABLE);
		assertThat(this.control.leaves.get("b").cancelled()).isTrue();
		assertThat(this.control.leaves.get("b").leaveId()).isEqualTo(leaveId);
		this.drain.check();
		assertThat(this.drain.state()).isEqualTo(MemberState.STABLE);
	}

	/**
	 * The member hands over while its cancel is being written, and how its leave ended lands first: the cancel, landing
	 * after it, would leave the record saying cancelled for a member that left. The end is written again after it.
	 */
	@Test
	void cancelThatLandsAfterTheLeaveEndedHasTheEndWrittenAgain() throws Exception {
		this.drain.leave(Optional.empty(), "test", true);
		this.drain.check();
		CompletableFuture<Void> cancelLands = new CompletableFuture<>();
		this.control.held = cancelLands;
		CompletableFuture<Boolean> cancelled = CompletableFuture.supplyAsync(this.drain::cancel);
		await("the cancel is being written").atMost(Duration.ofSeconds(5))
			.until(() -> cancelLands.getNumberOfDependents() > 0);
		this.control.held = null;
		this.control.plan(plan(leaveId(), Optional.of(HandOverReason.LEARNERS_READY)));
		this.drain.check();
		await("how the leave ended, on the topic first").atMost(Duration.ofSeconds(5))
			.until(() -> this.control.leaves.get("b").ended().isPresent());

		cancelLands.complete(null);

		assertThat(cancelled.get(5, TimeUnit.SECONDS)).as("nothing was cancelled").isFalse();
		assertThat(this.control.leaves.get("b").ended()).as("the record says how the member left, not cancelled")
			.contains(new LeaveRecord.Ended("drained", "learners-ready", 0));
		assertThat(this.drain.outcome()).contains(DrainOutcome.of(DrainOutcome.Reason.LEARNERS_READY, 0));
	}

	@Test
	void cancelThatCannotBeWrittenLeavesTheMemberLeaving() {
		this.drain.leave(Optional.empty(), "test", true);
		this.control.failWrites = true;
		assertThatExceptionOfType(ControlWriteException.class).isThrownBy(this.drain::cancel)
			.withMessageContaining("Cannot write the cancel of the leave to the control topic")
			.matches((refused) -> !refused.outcomeUnknown(), "a refusal, not an unknown outcome");
		assertThat(this.drain.state()).isEqualTo(MemberState.LEAVING);
	}

	@Test
	void drainWhoseLearnerComesNoCloserSaysItIsStalledGoesOnAndSaysWhenItMovesAgain() {
		try (LogCapture log = LogCapture.of(Drain.class)) {
			this.drain.leave(Optional.empty(), "test", true);
			this.control.plan(plan(leaveId(), Optional.empty()));
			this.control.progress.add(learnerOf("0_1", 40_000));
			this.drain.check();
			this.clock.advance(STALL);
			this.control.progress.set(0, learnerOf("0_1", 41_000));
			this.drain.check();

			assertThat(this.drain.stalled()).hasValueSatisfying((why) -> assertThat(why)
				.startsWith("no learner of [0_1] came closer to ready for PT1M (lag 40000)"));
			assertThat(this.drain.state()).as("a stall is no reason for a cold move").isEqualTo(MemberState.LEAVING);
			assertThat(log.messages(Level.WARN)).singleElement().asString()
				.startsWith("The drain of b (leave " + leaveId() + ") is stalled: no learner of [0_1]");

			this.clock.advance(Duration.ofSeconds(1));
			this.control.progress.set(0, learnerOf("0_1", 39_000));
			this.drain.check();
			assertThat(this.drain.stalled()).isEmpty();
			assertThat(log.messages(Level.INFO)).anySatisfy((info) -> assertThat(info).endsWith("moves again"));
		}
	}

	private ProgressRecord learnerOf(String task, long lag) {
		return new ProgressRecord("a", "a1", this.clock.instant(),
				List.of(new LearnerProgress(task, lag, 0, false, Optional.empty())));
	}

	@Test
	void leaveWhoseRequestGetsNoAnswerSaysItsOutcomeIsUnknownAndStartsIfTheRecordLands() {
		this.control.held = new CompletableFuture<>();
		this.control.wait = Duration.ofMillis(200);
		assertThatExceptionOfType(ControlWriteException.class)
			.isThrownBy(() -> this.drain.leave(Optional.empty(), "test", true))
			.withMessageContaining("whether it was written is unknown")
			.matches(ControlWriteException::outcomeUnknown, "outcome unknown");
		assertThat(this.drain.state()).isEqualTo(MemberState.STABLE);

		this.control.held.complete(null);
		this.drain.check();

		assertThat(this.drain.state()).as("the request landed late: the member follows it").isEqualTo(MemberState.LEAVING);
	}

	@Test
	void cancelWrittenAfterTheDrainEndedSaysNothingWasCancelled() throws Exception {
		this.drain.leave(Optional.empty(), "test", true);
		CompletableFuture<Void> landing = new CompletableFuture<>();
		this.control.held = landing;
		CompletableFuture<Boolean> cancelled = CompletableFuture.supplyAsync(this.drain::cancel);
		await("the cancel is being written").atMost(Duration.ofSeconds(5))
			.until(() -> landing.getNumberOfDependents() > 0);
		this.control.plan(plan(leaveId(), Optional.of(HandOverReason.LEARNERS_READY)));
		this.drain.check();
		assertThat(this.drain.outcome()).as("drained while the cancel was on its way").isPresent();

		landing.complete(null);

		assertThat(cancelled.get(5, TimeUnit.SECONDS)).as("nothing was cancelled").isFalse();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.drain.state() == MemberState.CLOSED);
	}

	private String leaveId() {
		return this.control.leaves.get("b").leaveId();
	}

	private PlanRecord plan(String leaveId, Optional<HandOverReason> handOver) {
		return MemberPlanBuilder.plan("b", this.identity.incarnation())
			.beingLearned("0_1")
			.leaving(leaveId)
			.handOver(handOver)
			.record(this.control.nextGeneration());
	}

	/**
	 * The control topic in memory: what is written is read back at once.
	 */
	private static final class InMemoryControl implements ControlState, ControlWriter {

		final Map<String, LeaveRecord> leaves = new ConcurrentHashMap<>();

		final Map<String, PlanRecord> plans = new ConcurrentHashMap<>();

		final List<String> tombstones = new CopyOnWriteArrayList<>();

		volatile PlanEpoch epoch;

		final List<ProgressRecord> progress = new CopyOnWriteArrayList<>();

		volatile boolean failWrites;

		volatile Duration wait = Duration.ofSeconds(5);

		/** Set: writes get no answer and land only when the test completes this future. */
		volatile CompletableFuture<Void> held;

		@Override
		public Duration acknowledgementWait() {
			return this.wait;
		}

		private int generation = 1;

		int nextGeneration() {
			return ++this.generation;
		}

		void plan(PlanRecord plan) {
			this.plans.put(plan.instanceId(), plan);
			epoch(plan.generation());
		}

		void epoch(int generation) {
			this.generation = generation;
			this.epoch = new PlanEpoch(generation, generation - 1, "a", Instant.EPOCH, "", List.of());
		}

		@Override
		public Optional<LeaveRecord> leaveRecord(String instanceId, String incarnation) {
			return Optional.ofNullable(this.leaves.get(instanceId))
				.filter((leave) -> leave.incarnation().equals(incarnation));
		}

		@Override
		public Optional<PlanRecord> plan(String instanceId, String incarnation) {
			return Optional.ofNullable(this.plans.get(instanceId))
				.filter((plan) -> plan.incarnation().equals(incarnation) && this.epoch != null
						&& plan.generation() == this.epoch.generation());
		}

		@Override
		public List<PlanRecord> plans() {
			PlanEpoch current = this.epoch;
			return this.plans.values().stream()
				.filter((plan) -> current != null && plan.generation() == current.generation())
				.toList();
		}

		@Override
		public Optional<PlanEpoch> planEpoch() {
			return Optional.ofNullable(this.epoch);
		}

		@Override
		public List<ProgressRecord> progress() {
			return List.copyOf(this.progress);
		}

		@Override
		public Optional<ProgressRecord> progressOf(StartId start) {
			return this.progress.stream()
				.filter((record) -> record.instanceId().equals(start.instanceId())
						&& record.incarnation().equals(start.incarnation()))
				.findFirst();
		}

		@Override
		public CompletableFuture<?> write(ControlRecord record) {
			if (this.failWrites) {
				return CompletableFuture.failedFuture(new AuthorizationException("not allowed to write the topic"));
			}
			CompletableFuture<Void> landing = this.held;
			if (landing != null) {
				return landing.thenRun(() -> apply(record));
			}
			apply(record);
			return CompletableFuture.completedFuture(null);
		}

		private void apply(ControlRecord record) {
			if (record instanceof LeaveRecord leave) {
				this.leaves.put(leave.instanceId(), leave);
			}
		}

		@Override
		public CompletableFuture<?> tombstone(String key) {
			this.tombstones.add(key);
			return CompletableFuture.completedFuture(null);
		}

	}

}
