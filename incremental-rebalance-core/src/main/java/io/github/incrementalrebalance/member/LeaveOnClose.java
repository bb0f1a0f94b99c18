package io.github.incrementalrebalance.member;

import org.apache.kafka.clients.consumer.CloseOptions.GroupMembershipOperation;

/**
 * Decides whether a closing main consumer leaves its group or stays in it.
 * <p>
 * By default a dynamic member always leaves: it rejoins under a new member id anyway, and a member that stays makes the
 * whole group wait {@code session.timeout.ms} before its tasks move (KAFKA-16514). Kafka Streams asks for the opposite
 * on every close it was not told otherwise about (up to 4.1 by a consumer setting, from 4.2 by passing
 * {@code REMAIN_IN_GROUP}), and the two cannot be told apart from an application's own {@code REMAIN_IN_GROUP}; so
 * under the default policy a stay is replaced, and only the policy {@code leave.on-close=false} lets it through. A
 * static member ({@code group.instance.id}) stays, so a restart gets its tasks back without a rebalance, until it is
 * told it is drained. An explicit {@code LEAVE_GROUP} (Kafka Streams closed with a leave, e.g. spring-kafka's
 * {@code setLeaveGroupOnClose(true)}) and a drained member always leave.
 */
public final class LeaveOnClose {

	private final boolean dynamicMembersLeave;

	private volatile boolean drained;

	/**
	 * The default policy: dynamic members leave on every close.
	 */
	public LeaveOnClose() {
		this(true);
	}

	/**
	 * A policy.
	 * @param dynamicMembersLeave true for a real leave on every close of a dynamic member; false to close as Kafka
	 * Streams asks (a drained member still leaves)
	 */
	public LeaveOnClose(boolean dynamicMembersLeave) {
		this.dynamicMembersLeave = dynamicMembersLeave;
	}

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
	 * @param requested what the caller passed ({@code DEFAULT} when it passed nothing)
	 * @return {@code LEAVE_GROUP} or {@code REMAIN_IN_GROUP}, never {@code DEFAULT}
	 */
	public GroupMembershipOperation operation(boolean staticMember, GroupMembershipOperation requested) {
		if (this.drained || requested == GroupMembershipOperation.LEAVE_GROUP
				|| (this.dynamicMembersLeave && !staticMember)) {
			return GroupMembershipOperation.LEAVE_GROUP;
		}
		return GroupMembershipOperation.REMAIN_IN_GROUP;
	}

}
