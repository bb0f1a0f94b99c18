package io.github.incrementalrebalance.member;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.clients.consumer.CloseOptions.GroupMembershipOperation;

/**
 * The group membership of one Kafka Streams instance: its main consumers, one per stream thread. Once the last of
 * them closed with a leave the instance is out of the group, which the others can be told at once, while Kafka
 * Streams still closes its producers, stores and other clients.
 */
final class GroupMembership {

	private int open;

	private boolean allLeft = true;

	private final List<Runnable> leftListeners = new ArrayList<>();

	synchronized void consumerOpened() {
		if (this.open == 0) {
			this.allLeft = true;
		}
		this.open++;
	}

	/**
	 * A main consumer closed.
	 * @param operation how it closed
	 */
	void consumerClosed(GroupMembershipOperation operation) {
		List<Runnable> toTell;
		synchronized (this) {
			this.open = Math.max(0, this.open - 1);
			this.allLeft &= operation == GroupMembershipOperation.LEAVE_GROUP;
			if (this.open > 0 || !this.allLeft || this.leftListeners.isEmpty()) {
				return;
			}
			toTell = List.copyOf(this.leftListeners);
			this.leftListeners.clear();
		}
		toTell.forEach(Runnable::run);
	}

	/**
	 * Be told once, on the closing thread, when every main consumer of the instance has closed with a leave.
	 * @param listener what to run; return fast
	 */
	synchronized void whenLeft(Runnable listener) {
		this.leftListeners.add(listener);
	}

}
