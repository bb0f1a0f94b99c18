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
		this.trigger.follow("another member asked");
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

		this.trigger.follow("learners ready [0_0] (a rejoins as c asked)");

		assertThat(this.trigger.take()).isNotNull();
	}

}
