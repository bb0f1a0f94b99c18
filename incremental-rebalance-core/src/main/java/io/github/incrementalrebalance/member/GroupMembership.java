package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.CloseOptions.GroupMembershipOperation;

/**
 * The group membership of one Kafka Streams instance: its main consumers, one per stream thread. Once the last of
 * them closed with a leave the instance is out of the group, which the others can be told at once, while Kafka
 * Streams still closes its producers, stores and other clients.
 */
final class GroupMembership {

	private int open;

	/** Main consumers that closed without a leave since the instance's first one opened, or its exit began. */
	private int stayed;

	private final List<Runnable> leftListeners = new ArrayList<>();

	synchronized void consumerOpened() {
		if (this.open == 0) {
			this.stayed = 0;
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
			if (operation != GroupMembershipOperation.LEAVE_GROUP) {
				this.stayed++;
			}
			notifyAll();
			if (this.open > 0 || this.stayed > 0 || this.leftListeners.isEmpty()) {
				return;
			}
			toTell = List.copyOf(this.leftListeners);
			this.leftListeners.clear();
		}
		toTell.forEach(Runnable::run);
	}

	/**
	 * How many main consumers are open.
	 * @return the count
	 */
	synchronized int open() {
		return this.open;
	}

	/**
	 * The instance leaves the group: from now on, only the consumers open now count. A thread replaced earlier closed
	 * its consumer without a leave when it was a static member's, and its replacement took its place in the group.
	 */
	synchronized void exitBegins() {
		this.stayed = 0;
	}

	/**
	 * How many main consumers closed without leaving the group, since the instance's first one opened or its exit
	 * began.
	 * @return the count
	 */
	synchronized int stayed() {
		return this.stayed;
	}

	/**
	 * Wait until every main consumer has closed, or a timeout passed.
	 * @param timeout the longest wait
	 * @return how many are still open
	 * @throws InterruptedException when interrupted
	 */
	synchronized int awaitClosed(Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (this.open > 0) {
			long left = deadline - System.nanoTime();
			if (left <= 0) {
				break;
			}
			TimeUnit.NANOSECONDS.timedWait(this, left);
		}
		return this.open;
	}

	/**
	 * Be told once, on the closing thread, when every main consumer of the instance has closed with a leave.
	 * @param listener what to run; return fast
	 */
	synchronized void whenLeft(Runnable listener) {
		this.leftListeners.add(listener);
	}

}
