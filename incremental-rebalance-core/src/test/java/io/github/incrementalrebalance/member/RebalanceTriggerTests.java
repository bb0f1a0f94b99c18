package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests and their announcement: one rebalance per cause, not one more right after the rebalance that already
 * answers it.
 */
class RebalanceTriggerTests {

	private final RebalanceTrigger trigger = new RebalanceTrigger();

	@Test
	void ownRequestWhileItsJoinIsInFlightWaitsAndIsDroppedOnceTheRebalanceCompletes() {
		this.trigger.follow("another member asked", -1);
		RebalanceTrigger.Request followed = this.trigger.take();
		assertThat(followed).isNotNull();
		this.trigger.enforced(followed);

		this.trigger.request("learners ready [0_3]");
		assertThat(this.trigger.take()).as("the join in flight reads the learner's lag already").isNull();
		assertThat(this.trigger.isPending()).isTrue();

		this.trigger.generationCompleted(7);
		assertThat(this.trigger.isPending()).as("answered by the rebalance just completed").isFalse();
		assertThat(this.trigger.enforcedCount()).isZero();

		this.trigger.request("learners ready [0_4]");
		RebalanceTrigger.Request next = this.trigger.take();
		assertThat(next).as("a request after the rebalance starts the next one").isNotNull();
		assertThat(next.reason()).isEqualTo("learners ready [0_4]");
	}

	@Test
	void anotherMembersRequestIsFollowedEvenWhileJoining() {
		this.trigger.request("b is leaving");
		this.trigger.enforced(this.trigger.take());

		this.trigger.follow("learners ready [0_0] (a rejoins as c asked)", 4);

		assertThat(this.trigger.take()).isNotNull();
	}

	/**
	 * a's partitions were revoked in generation 5 and it asked the others to join the next round; that round
	 * (generation 6) completed with this member in it before its consumer, busy with new tasks, polled: joining again
	 * would start a round the others join only at their next heartbeat.
	 */
	@Test
	void anotherMembersRequestIsDroppedWhenARebalanceCompletedSinceItWasAsked() {
		this.trigger.generationCompleted(5);
		this.trigger.follow("2 partition(s) revoked in generation 5 go to their new owners (c rejoins as a asked)", 5);

		this.trigger.generationCompleted(6);

		assertThat(this.trigger.take()).as("answered by generation 6").isNull();
		assertThat(this.trigger.isPending()).isFalse();
		assertThat(this.trigger.followedCount()).isZero();

		this.trigger.follow("learners ready [0_1] (c rejoins as b asked)", 6);
		assertThat(this.trigger.take()).as("asked after generation 6: not answered yet").isNotNull();
	}

	/**
	 * a's own request waits while the round of generation 5 is in flight; b, whose partitions that round revoked,
	 * completes it first and asks the others to join the next one. Completing generation 5 drops a's own request (the
	 * round read its cause) but not b's: b is in the round after 5, which a joins at once instead of at its next
	 * heartbeat. (Merged into the own request, b's round was dropped with it, and an eager hand-over stalled a
	 * heartbeat.)
	 */
	@Test
	void anotherMembersRoundAskedDuringAnOwnJoinIsFollowedOnceTheSameGenerationCompletes() {
		this.trigger.request(RebalanceCause.LEARNERS_READY, "learners ready [0_1]");
		this.trigger.enforced(this.trigger.take());
		this.trigger.request(RebalanceCause.LEARNERS_READY, "learners ready [0_2]");
		assertThat(this.trigger.take()).as("held while its join is in flight").isNull();

		this.trigger.follow("1 partition(s) revoked in generation 5 go to their new owners (a rejoins as b asked)", 5);
		this.trigger.generationCompleted(5);

		RebalanceTrigger.Request followed = this.trigger.take();
		assertThat(followed).as("b's round after generation 5").isNotNull();
		assertThat(followed.announce()).as("a's own request was answered by generation 5").isFalse();
		this.trigger.enforced(followed);
		assertThat(this.trigger.followedCount()).isOne();
		assertThat(this.trigger.rounds(RebalanceCause.FOLLOW)).isOne();
		assertThat(this.trigger.rounds(RebalanceCause.LEARNERS_READY)).isOne();
	}

	/**
	 * Own rounds are at least a heartbeat apart: a request sooner than that waits, merged with those that follow, and
	 * is enforced once the heartbeat passed; rounds are counted by cause, a follow and a join of its own included.
	 */
	/**
	 * a revoked partitions in generation 6 and announced the round after it; c's follow-up round was formed meanwhile
	 * and b is in it when a's announcement reaches it: joining again would start generation 8, which a joins only at
	 * its next heartbeat, and c's new tasks wait for it.
	 */
	@Test
	void anotherMembersRoundAskedAfterAGenerationThisMemberIsAlreadyJoiningPastIsNotJoinedAgain() {
		this.trigger.generationCompleted(6);
		this.trigger.follow("Kafka Streams rejoins (b rejoins as c asked)", 6);
		this.trigger.enforced(this.trigger.take());

		this.trigger.follow("2 partition(s) revoked in generation 6 go to their new owners (b rejoins as a asked)", 6);
		assertThat(this.trigger.take()).as("the round in flight is the one after generation 6").isNull();

		this.trigger.follow("learners ready (b rejoins as c asked)", 7);
		assertThat(this.trigger.take()).as("the round after the one in flight").isNotNull();
		assertThat(this.trigger.followedCount()).isOne();
	}

	@Test
	void ownRoundsAreSpacedByTheHeartbeatMergedWhileTheyWaitAndCountedByCause() {
		AtomicLong nanos = new AtomicLong(1_000_000_000L);
		RebalanceTrigger spaced = new RebalanceTrigger(nanos::get);
		spaced.spaceOwnRounds(Duration.ofSeconds(3));

		spaced.request(RebalanceCause.LEAVE, "b is leaving");
		spaced.enforced(spaced.take());
		spaced.generationCompleted(4);

		nanos.addAndGet(Duration.ofSeconds(1).toNanos());
		spaced.request(RebalanceCause.LEARNERS_READY, "learners ready [0_1]");
		spaced.request(RebalanceCause.LEARNERS_READY, "learners ready [0_1, 0_2]");
		assertThat(spaced.take()).as("1 s after its last own round").isNull();
		assertThat(spaced.isPending()).isTrue();

		nanos.addAndGet(Duration.ofMillis(2_001).toNanos());
		RebalanceTrigger.Request merged = spaced.take();
		assertThat(merged).as("3 s after it").isNotNull();
		assertThat(merged.reason()).isEqualTo("learners ready [0_1, 0_2]");
		spaced.enforced(merged);
		spaced.generationCompleted(5);

		spaced.follow("c is leaving (a rejoins as c asked)", 5);
		assertThat(spaced.take()).as("another member's round is joined at once").isNotNull();
		spaced.joiningByItself("a new member joins the group");

		assertThat(spaced.enforcedCount()).isEqualTo(2);
		assertThat(spaced.rounds(RebalanceCause.LEAVE)).isEqualTo(1);
		assertThat(spaced.rounds(RebalanceCause.LEARNERS_READY)).isEqualTo(1);
		assertThat(spaced.rounds(RebalanceCause.JOIN)).isEqualTo(1);
	}

	/**
	 * An own request held back by the spacing does not hold back another member's round: asked to rejoin (a revoke's
	 * second round of a hand-over), this instance joins at once, its own request riding along, whichever came first.
	 */
	@Test
	void ownRequestHeldBackByTheSpacingJoinsAnotherMembersRoundAtOnce() {
		AtomicLong nanos = new AtomicLong(1_000_000_000L);
		RebalanceTrigger spaced = new RebalanceTrigger(nanos::get);
		spaced.spaceOwnRounds(Duration.ofSeconds(5));
		spaced.request(RebalanceCause.LEARNERS_READY, "learners ready [0_1]");
		spaced.enforced(spaced.take());
		spaced.generationCompleted(4);
		nanos.addAndGet(Duration.ofSeconds(1).toNanos());

		spaced.request(RebalanceCause.LEARNERS_READY, "learners ready [0_2]");
		assertThat(spaced.take()).as("held back by the spacing").isNull();
		spaced.follow("0_1 revoked in generation 4 (a rejoins as b asked)", 4);
		RebalanceTrigger.Request joined = spaced.take();
		assertThat(joined).as("another member's round").isNotNull();
		assertThat(joined.announce()).as("its own request rides along, announced").isTrue();
		spaced.enforced(joined);
		assertThat(spaced.rounds(RebalanceCause.FOLLOW)).as("the round was another member's").isOne();
		spaced.generationCompleted(5);

		nanos.addAndGet(Duration.ofSeconds(1).toNanos());
		spaced.follow("0_2 revoked in generation 5 (a rejoins as b asked)", 5);
		spaced.request(RebalanceCause.LEARNERS_READY, "learners ready [0_3]");
		assertThat(spaced.take()).as("asked to rejoin first, its own request after").isNotNull();
	}

}
