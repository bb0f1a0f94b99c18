package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.incrementalrebalance.control.ControlWriter;
import io.github.incrementalrebalance.control.LeaveRecord;
import io.github.incrementalrebalance.identity.MemberIdentity;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A member's way out of the group once its leave ended: Kafka Streams is closed on a thread of its own, how the leave
 * ended is recorded once every main consumer has left the group (the others follow that record), and the member is
 * reported closed only then. A close that returns with consumers still open (a stream thread that did not stop in
 * time) waits for them up to the group's rebalance timeout, past which a consumer that no longer polls is out of the
 * group anyway; a consumer that closed without leaving keeps its tasks until its session expires. Either is a WARN.
 */
final class GroupExit {

	private static final Logger logger = LoggerFactory.getLogger(GroupExit.class);

	private final MemberIdentity identity;

	private final ControlWriter writer;

	private final GroupMembership membership;

	private final Runnable closeStreams;

	private final Duration rebalanceTimeout;

	/** How the leave ended, as written to its record once the member was out of the group; null before. */
	private volatile LeaveRecord endWritten;

	/**
	 * @param closeStreams closes Kafka Streams, the main consumers with a leave
	 * @param rebalanceTimeout the group's rebalance timeout ({@code max.poll.interval.ms})
	 */
	GroupExit(MemberIdentity identity, ControlWriter writer, GroupMembership membership, Runnable closeStreams,
			Duration rebalanceTimeout) {
		this.identity = identity;
		this.writer = writer;
		this.membership = membership;
		this.closeStreams = closeStreams;
		this.rebalanceTimeout = rebalanceTimeout;
	}

	/**
	 * Close Kafka Streams and record how the leave ended; returns at once.
	 * @param ended the leave record saying how it ended
	 * @param closed told on the closing thread once the member is out of the group, or said why not
	 */
	void leave(LeaveRecord ended, Runnable closed) {
		AtomicBoolean recorded = new AtomicBoolean();
		Runnable recordEnd = () -> {
			if (recorded.compareAndSet(false, true)) {
				record(ended);
			}
		};
		// the others follow the record and rejoin at once, while Kafka Streams still closes its producers and stores
		this.membership.exitBegins();
		this.membership.whenLeft(recordEnd);
		Thread closer = new Thread(() -> {
			try {
				this.closeStreams.run();
				awaitConsumers();
			}
			finally {
				recordEnd.run();
				closed.run();
			}
		}, "incremental-rebalance-close-" + this.identity.instanceId());
		closer.start();
	}

	private void awaitConsumers() {
		String id = this.identity.instanceId();
		int open = this.membership.open();
		if (open > 0) {
			logger.warn("Kafka Streams of {} closed with {} main consumer(s) still open (a stream thread that did not "
					+ "stop in time): its leave is recorded as ended once they have left the group, at most after the "
					+ "group's rebalance timeout ({}, max.poll.interval.ms), past which they are out of it anyway", id,
					open, this.rebalanceTimeout);
			try {
				open = this.membership.awaitClosed(this.rebalanceTimeout);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		int stayed = this.membership.stayed();
		if (open > 0 || stayed > 0) {
			logger.warn("{} of {}'s main consumers did not leave the group ({} still open, {} closed without a leave): "
					+ "the others take their tasks once the group drops them (session.timeout.ms or "
					+ "max.poll.interval.ms)", open + stayed, id, open, stayed);
		}
	}

	private void record(LeaveRecord ended) {
		this.endWritten = ended;
		this.writer.write(ended).whenComplete((done, failure) -> {
			if (failure != null) {
				logger.warn("Could not record how the leave of {} ended on the control topic; a leader removes its "
						+ "leave record once the member is gone", this.identity.instanceId(), failure);
			}
		});
	}

	/**
	 * How the leave ended, as written once the member was out of the group.
	 * @return the record, null before
	 */
	LeaveRecord endWritten() {
		return this.endWritten;
	}

}
