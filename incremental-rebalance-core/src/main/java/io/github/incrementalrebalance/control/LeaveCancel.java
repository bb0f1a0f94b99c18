package io.github.incrementalrebalance.control;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The cancel of another member's leave, written from anywhere (the command line, another instance's endpoint), and
 * what came of it: whether the member stayed, or had left first. Records are last-writer-wins and the member decides
 * on its own when to hand over, so writing the cancel says nothing yet: the member may have ended its leave just
 * before (then the cancel must not hide how it ended), or be handing over as it reads the cancel. The answer is the
 * member's: a plan of a later round that no longer acts on the leave (it stayed and asked for that round), or the end
 * it writes into its leave record.
 * <p>
 * Called on an operator's thread (a command, a request); it waits, bounded, for the member's answer.
 */
public final class LeaveCancel {

	/**
	 * What came of a cancel.
	 */
	public enum Answer {

		/** The member stayed: a later plan no longer acts on its leave. */
		CANCELLED,
		/** The member had left, or was handing over, when the cancel came: {@link Result#ended()} says how. */
		LEFT_FIRST,
		/** The cancel is written, and the member has not answered within the wait: it stays if it reads the cancel
		 * before it hands over. */
		UNANSWERED

	}

	/**
	 * What came of a cancel.
	 * @param answer the member's answer
	 * @param ended how its leave ended, when it left first
	 */
	public record Result(Answer answer, Optional<LeaveRecord.Ended> ended) {

		/**
		 * An answer without an end.
		 * @param answer the answer
		 * @return the result
		 */
		public static Result of(Answer answer) {
			return new Result(answer, Optional.empty());
		}

	}

	private final ControlTopicReader reader;

	private final ControlWriter writer;

	/**
	 * @param reader the control topic, read up to its end
	 * @param writer the control topic's writer
	 */
	public LeaveCancel(ControlTopicReader reader, ControlWriter writer) {
		this.reader = reader;
		this.writer = writer;
	}

	/**
	 * Cancel a leave and wait for the member's answer.
	 * @param pending the leave, as read pending
	 * @param source who cancels
	 * @param answerWait how long to wait for the member's answer
	 * @return what came of it
	 * @throws ControlWriteException when the cancel was not written, or whether it was is unknown
	 */
	public Result cancel(LeaveRecord pending, String source, Duration answerWait) {
		String instanceId = pending.instanceId();
		String incarnation = pending.incarnation();
		List<LeaveRecord> heard = new CopyOnWriteArrayList<>();
		Object news = new Object();
		Consumer<ControlRecord> listener = (record) -> {
			if (record.key().equals(pending.key()) || record.key().equals(PlanRecord.keyOf(instanceId, incarnation))) {
				if (record instanceof LeaveRecord leave && leave.leaveId().equals(pending.leaveId())) {
					heard.add(leave);
				}
				synchronized (news) {
					news.notifyAll();
				}
			}
		};
		Runnable stopListening = this.reader.addListener(listener);
		try {
			Optional<LeaveRecord> now = this.reader.leaveRecord(instanceId, incarnation)
				.filter((leave) -> leave.leaveId().equals(pending.leaveId()));
			if (now.flatMap(LeaveRecord::ended).isPresent()) {
				return new Result(Answer.LEFT_FIRST, now.get().ended());
			}
			int before = this.reader.plan(instanceId, incarnation).map(PlanRecord::generation).orElse(-1);
			this.writer.writeAndWait(pending.cancel(source), "cancel the leave of " + instanceId);
			long until = System.nanoTime() + answerWait.toNanos();
			while (true) {
				Optional<Result> answer = answerIn(heard, pending, before);
				if (answer.isPresent()) {
					return answer.get();
				}
				long left = until - System.nanoTime();
				if (left <= 0) {
					return Result.of(Answer.UNANSWERED);
				}
				synchronized (news) {
					news.wait(Math.max(1, Math.min(left / 1_000_000, 200)));
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return Result.of(Answer.UNANSWERED);
		}
		finally {
			stopListening.run();
		}
	}

	/**
	 * The member's answer in what was read since the cancel was written, if it answered. An end read before the
	 * first cancel was written before it too: the cancel replaced it on the topic, so it is written again.
	 */
	private Optional<Result> answerIn(List<LeaveRecord> heard, LeaveRecord pending, int planBefore) {
		int firstCancel = -1;
		for (int i = 0; i < heard.size(); i++) {
			LeaveRecord record = heard.get(i);
			if (record.ended().isPresent()) {
				if (firstCancel < 0) {
					this.writer.writeAndWait(record, "write again how the leave of " + pending.instanceId()
							+ " ended, which the cancel replaced");
				}
				return Optional.of(new Result(Answer.LEFT_FIRST, record.ended()));
			}
			if (record.cancelled() && firstCancel < 0) {
				firstCancel = i;
			}
		}
		if (firstCancel < 0) {
			return Optional.empty();
		}
		boolean stayed = this.reader.plan(pending.instanceId(), pending.incarnation())
			.filter((plan) -> plan.generation() > planBefore)
			.filter((plan) -> !plan.plan().actsOn(pending.leaveId()))
			.isPresent();
		return stayed ? Optional.of(Result.of(Answer.CANCELLED)) : Optional.empty();
	}

}
