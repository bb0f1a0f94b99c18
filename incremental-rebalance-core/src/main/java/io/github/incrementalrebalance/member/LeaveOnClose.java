package io.github.incrementalrebalance.member;

import org.apache.kafka.clients.consumer.CloseOptions.GroupMembershipOperation;

/**
 * Decides whether a closing main consumer leaves its group or stays in it.
 * <p>
 * A dynamic member always leaves: it rejoins under a new member id anyway, and a member that stays makes the whole
 * group wait {@code session.timeout.ms} before its tasks move (KAFKA-16514). A static member ({@code group.instance.id})
 * stays, so a restart gets its tasks back without a rebalance, until it is told it is drained: then it leaves and the
 * group removes it at once.
 */
public final class LeaveOnClose {

	private volatile boolean drained;

	/**
	 * Make static members leave on their next close.
	 */
	public void markDrained() {
		this.drained = true;
	}

	/**
	 * Whether {@link #markDrained()} was called.
	 * @return true once drained
	 */
	public boolean isDrained() {
		return this.drained;
	}

	/**
	 * The operation a closing consumer passes to the group.
	 * @param staticMember whether the consumer has a {@code group.instance.id}
	 * @return {@code LEAVE_GROUP} or {@code REMAIN_IN_GROUP}, never {@code DEFAULT}
	 */
	public GroupMembershipOperation operation(boolean staticMember) {
		return (!staticMember || this.drained) ? GroupMembershipOperation.LEAVE_GROUP
				: GroupMembershipOperation.REMAIN_IN_GROUP;
	}

}
