package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.consumer.CloseOptions.GroupMembershipOperation;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An instance is out of its group once every stream thread's main consumer closed with a leave, and only then.
 */
class GroupMembershipTests {

	private final GroupMembership membership = new GroupMembership();

	private final AtomicInteger told = new AtomicInteger();

	@Test
	void outOfTheGroupOnceTheLastMainConsumerLeft() {
		this.membership.consumerOpened();
		this.membership.consumerOpened();
		this.membership.whenLeft(this.told::incrementAndGet);

		this.membership.consumerClosed(GroupMembershipOperation.LEAVE_GROUP);
		assertThat(this.told).as("one stream thread is still in the group").hasValue(0);

		this.membership.consumerClosed(GroupMembershipOperation.LEAVE_GROUP);
		assertThat(this.told).hasValue(1);

		this.membership.consumerOpened();
		this.membership.consumerClosed(GroupMembershipOperation.LEAVE_GROUP);
		assertThat(this.told).as("told once").hasValue(1);
	}

	@Test
	void aCloseWaitsForTheConsumersStillOpenAtMostItsTimeout() throws InterruptedException {
		this.membership.consumerOpened();
		this.membership.consumerOpened();
		this.membership.consumerClosed(GroupMembershipOperation.LEAVE_GROUP);

		assertThat(this.membership.awaitClosed(Duration.ofMillis(100))).as("one stuck").isEqualTo(1);

		Thread stuck = new Thread(() -> this.membership.consumerClosed(GroupMembershipOperation.REMAIN_IN_GROUP));
		stuck.start();
		assertThat(this.membership.awaitClosed(Duration.ofSeconds(10))).isZero();
		assertThat(this.membership.stayed()).as("closed without a leave").isEqualTo(1);
	}

	@Test
	void aStaticMembersThreadReplacedBeforeTheExitDoesNotKeepTheInstanceInTheGroup() {
		this.membership.consumerOpened();
		this.membership.consumerOpened();
		this.membership.consumerClosed(GroupMembershipOperation.REMAIN_IN_GROUP);
		this.membership.consumerOpened();

		this.membership.exitBegins();
		this.membership.whenLeft(this.told::incrementAndGet);
		this.membership.consumerClosed(GroupMembershipOperation.LEAVE_GROUP);
		this.membership.consumerClosed(GroupMembershipOperation.LEAVE_GROUP);

		assertThat(this.told).hasValue(1);
		assertThat(this.membership.stayed()).isZero();
	}

	@Test
	void aConsumerThatStaysKeepsTheInstanceInTheGroup() {
		this.membership.consumerOpened();
		this.membership.consumerOpened();
		this.membership.whenLeft(this.told::incrementAndGet);

		this.membership.consumerClosed(GroupMembershipOperation.REMAIN_IN_GROUP);
		this.membership.consumerClosed(GroupMembershipOperation.LEAVE_GROUP);

		assertThat(this.told).hasValue(0);
	}

}
