package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.incrementalrebalance.assignor.HandOverReason;
import io.github.incrementalrebalance.assignor.RebalancingMode;
import io.github.incrementalrebalance.control.ControlRecord;
import io.github.incrementalrebalance.control.ControlState;
import io.github.incrementalrebalance.control.ControlWriter;
import io.github.incrementalrebalance.control.LeaveRecord;
import io.github.incrementalrebalance.control.PlanEpoch;
import io.github.incrementalrebalance.control.PlanRecord;
import io.github.incrementalrebalance.testkit.MutableClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The leave state machine against an in-memory control topic and a clock the test moves.
 */
class DrainTests {

	private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T12:00:00Z"));

	private final MemberIdentity identity = MemberIdentity.newIncarnation("b", RebalancingMode.INCREMENTAL,
			this.clock.instant());

	private final InMemoryControl control = new InMemoryControl();

	private final RebalanceTrigger trigger = new RebalanceTrigger();

	private final LeaveOnClose leaveOnClose = new LeaveOnClose();

	private final AtomicInteger streamsClosed = new AtomicInteger();

	private final List<MemberState> states = new CopyOnWriteArrayList<>();

	private final Drain drain = new Drain(this.identity, this.control, this.control, this.trigger, this.leaveOnClose,
			this.streamsClosed::incrementAndGet, Duration.ofSeconds(10), this.clock);

	@BeforeEach
	void recordStates() {
		this.drain.addStateListener(this.states::add);
	}

	@Test
	void leaveWritesTheRequestAndAsksForARebalanceOnce() {
		assertThat(this.drain.leave(Optional.of(Duration.ofMinutes(1)), "test")).isTrue();
		assertThat(this.drain.leave(Optional.empty(), "test")).as("a repeat").isFalse();

		assertThat(this.drain.state()).isEqualTo(MemberState.LEAVING);
		LeaveRecord written = this.control.leaves.get("b");
		assertThat(written.incarnation()).isEqualTo(this.identity.incarnation());
		assertThat(written.deadline()).contains(written.requestedAt().plus(Duration.ofMinutes(1)));
		assertThat(this.trigger.requestedCount()).isEqualTo(1);
	}

	@Test
	void leaveNoPlanListsYetIsAskedAgainWithBackOff() {
		this.drain.leave(Optional.empty(), "test");
		this.control.epoch(1);
		for (int second = 1; second <= 8; second++) {
			this.clock.advance(Duration.ofSeconds(1));
			this.trigger.observeGeneration(-1);
			this.drain.check();
		}
		assertThat(this.trigger.requestedCount()).as("at 1 s, 3 s and 7 s after the request, then every 8 s")
			.isEqualTo(4);
		this.control.plan(plan(true, Optional.empty()));
		this.clock.advance(Duration.ofSeconds(8));
		this.drain.check();
		assertThat(this.trigger.requestedCount()).as("confirmed: no more retries").isEqualTo(4);
		assertThat(this.drain.state()).isEqualTo(MemberState.LEAVING);
	}

	@Test
	void handOverLeavesTheGroupClosesAndForgetsTheRequest() {
		this.drain.leave(Optional.empty(), "test");
		this.drain.check();
		this.control.plan(plan(true, Optional.of(HandOverReason.LEARNERS_READY)));

		this.drain.check();

		await().atMost(Duration.ofSeconds(5)).until(() -> this.drain.state() == MemberState.CLOSED);
		assertThat(this.streamsClosed).hasValue(1);
		assertThat(this.leaveOnClose.isDrained()).isTrue();
		assertThat(this.states).endsWith(MemberState.DRAINED, MemberState.CLOSED);
		assertThat(this.control.tombstones).contains(LeaveRecord.keyOf("b"));
	}

	@Test
	void deadlineForcesTheLeave() {
		this.drain.leave(Optional.of(Duration.ofSeconds(30)), "test");
		this.control.plan(plan(true, Optional.empty()));
		this.clock.advance(Duration.ofSeconds(29));
		this.drain.check();
		assertThat(this.drain.state()).isEqualTo(MemberState.LEAVING);

		this.clock.advance(Duration.ofSeconds(1));
		this.drain.check();

		await().atMost(Duration.ofSeconds(5)).until(() -> this.drain.state() == MemberState.CLOSED);
		assertThat(this.states).endsWith(MemberState.FORCED, MemberState.CLOSED);
	}

	@Test
	void rebalanceWithoutAPlanMeansTheLeaderCannotLearn() {
		this.control.epoch(1);
		this.trigger.observeGeneration(4);
		this.drain.leave(Optional.empty(), "test");
		this.trigger.observeGeneration(5);
		this.drain.check();
		this.clock.advance(Duration.ofMillis(1_900));
		this.drain.check();
		assertThat(this.drain.state()).as("within the grace for the plan to be read").isEqualTo(MemberState.LEAVING);

		this.clock.advance(Duration.ofMillis(100));
		this.drain.check();

		await().atMost(Duration.ofSeconds(5)).until(() -> this.drain.state() == MemberState.CLOSED);
		assertThat(this.states).endsWith(MemberState.DRAINED, MemberState.CLOSED);
	}

	@Test
	void leaveWrittenElsewhereIsFollowedAndItsTombstoneCancelsIt() {
		this.control.leaves.put("b", new LeaveRecord("b", this.identity.incarnation(), this.clock.instant(),
				Optional.empty(), "cli"));
		this.drain.check();
		assertThat(this.drain.state()).isEqualTo(MemberState.LEAVING);
		assertThat(this.trigger.requestedCount()).isEqualTo(1);

		this.control.leaves.remove("b");
		this.drain.check();

		assertThat(this.drain.state()).isEqualTo(MemberState.STABLE);
	}

	@Test
	void leaveOfAnEarlierIncarnationIsIgnored() {
		this.control.leaves.put("b", new LeaveRecord("b", "old", this.clock.instant(), Optional.empty(), "cli"));
		this.drain.check();
		assertThat(this.drain.state()).isEqualTo(MemberState.STABLE);
	}

	@Test
	void cancelWritesATombstoneAndStays() {
		this.drain.leave(Optional.empty(), "test");
		assertThat(this.drain.cancel()).isTrue();
		assertThat(this.drain.state()).isEqualTo(MemberState.STABLE);
		assertThat(this.control.tombstones).containsExactly(LeaveRecord.keyOf("b"));
		this.drain.check();
		assertThat(this.drain.state()).as("the request not yet compacted away is not followed again")
			.isEqualTo(MemberState.STABLE);
	}

	private PlanRecord plan(boolean leaving, Optional<HandOverReason> handOver) {
		return new PlanRecord("b", this.identity.incarnation(), this.clock.millis(), List.of("0_1"), Map.of(),
				List.of(), List.of("0_1"), List.of(), leaving, handOver);
	}

	/**
	 * The control topic in memory: what is written is read back at once.
	 */
	private static final class InMemoryControl implements ControlState, ControlWriter {

		final Map<String, LeaveRecord> leaves = new ConcurrentHashMap<>();

		final Map<String, PlanRecord> plans = new ConcurrentHashMap<>();

		final List<String> tombstones = new CopyOnWriteArrayList<>();

		volatile PlanEpoch epoch;

		void plan(PlanRecord plan) {
			this.plans.put(plan.instanceId(), plan);
			epoch(plan.epoch() + 1);
		}

		void epoch(long epoch) {
			this.epoch = new PlanEpoch(epoch, "a", Instant.ofEpochMilli(epoch), "", List.of());
		}

		@Override
		public Optional<LeaveRecord> leaveRecord(String instanceId) {
			return Optional.ofNullable(this.leaves.get(instanceId));
		}

		@Override
		public Optional<PlanRecord> plan(String instanceId) {
			return Optional.ofNullable(this.plans.get(instanceId));
		}

		@Override
		public Optional<PlanEpoch> planEpoch() {
			return Optional.ofNullable(this.epoch);
		}

		@Override
		public CompletableFuture<?> write(ControlRecord record) {
			if (record instanceof LeaveRecord leave) {
				this.leaves.put(leave.instanceId(), leave);
			}
			return CompletableFuture.completedFuture(null);
		}

		@Override
		public CompletableFuture<?> tombstone(String key) {
			this.tombstones.add(key);
			return CompletableFuture.completedFuture(null);
		}

	}

}
