package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.incrementalrebalance.config.Backoff;
import io.github.incrementalrebalance.control.ControlState;
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
 * <p>
 * An end the control topic did not take (the cluster was unreachable longer than the writer's producer retries) is
 * written again under a back-off for as long as the writer is open and the leave record, as this member reads it,
 * still waits for its end: once the leader removed the record (its member gone) or another member recorded an end,
 * nothing is left to write.
 */
final class GroupExit {

	private static final Logger logger = LoggerFactory.getLogger(GroupExit.class);

	private final MemberIdentity identity;

	private final ControlWriter writer;

	private final ControlState reader;

	/** The pause before writing the leave's end again, after each failure. */
	private final Backoff endRetry;

	private final GroupMembership membership;

	private final Runnable closeStreams;

	private final Duration rebalanceTimeout;

	/** How the leave ended, as written to its record once the member was out of the group; null before. */
	private volatile LeaveRecord endWritten;

	/**
	 * @param reader the control topic as this member reads it: whether the leave still waits for its end
	 * @param closeStreams closes Kafka Streams, the main consumers with a leave
	 * @param rebalanceTimeout the group's rebalance timeout ({@code max.poll.interval.ms})
	 * @param endRetry the pause before writing the leave's end again after a failure
	 */
	GroupExit(MemberIdentity identity, ControlWriter writer, ControlState reader, GroupMembership membership,
			Runnable closeStreams, Duration rebalanceTimeout, Backoff endRetry) {
		this.identity = identity;
		this.writer = writer;
		this.reader = reader;
		this.endRetry = endRetry;
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
		writeEnd(ended, 1);
	}

	private void writeEnd(LeaveRecord ended, long attempt) {
		String id = this.identity.instanceId();
		this.writer.write(ended).whenComplete((done, failure) -> {
			if (failure == null) {
				if (attempt > 1) {
					logger.info("Recorded how the leave of {} ended on the control topic, at attempt {}", id, attempt);
				}
				return;
			}
			if (!this.writer.isOpen() || !stillWaitsForItsEnd(ended)) {
				logger.warn("Could not record how the leave of {} ended on the control topic (attempt {}), and will "
						+ "not try again: {}", id, attempt, this.writer.isOpen()
								? "the leave record no longer waits for an end (removed, or ended by another member)"
								: "the control topic's writer is closed; the leader records the end once the member "
										+ "is gone",
						failure);
				return;
			}
			Duration pause = this.endRetry.pauseAfter(attempt);
			if (attempt == 1) {
				logger.warn("Could not record how the leave of {} ended on the control topic: writing it again every "
						+ "{} at most, while the leave record waits for it", id, this.endRetry.cap(), failure);
			}
			CompletableFuture.delayedExecutor(pause.toMillis(), TimeUnit.MILLISECONDS)
				.execute(() -> writeEnd(ended, attempt + 1));
		});
	}

	private boolean stillWaitsForItsEnd(LeaveRecord ended) {
		return this.reader.leaveRecord(ended.instanceId(), ended.incarnation())
			.filter((held) -> held.leaveId().equals(ended.leaveId()) && held.pending())
			.isPresent();
	}

	/**
	 * How the leave ended, as written once the member was out of the group.
	 * @return the record, null before
	 */
	LeaveRecord endWritten() {
		return this.endWritten;
	}

}
