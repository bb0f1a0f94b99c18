package io.github.incrementalrebalance.member;

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

}
