package io.github.incrementalrebalance.cli;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;

import io.github.incrementalrebalance.control.ControlTopicReader;
import io.github.incrementalrebalance.control.LeaveAsk;
import io.github.incrementalrebalance.control.LeaveRecord;

/**
 * Asking instances to leave and following their leaves until they end: what {@code leave} and {@code scale-down}
 * share.
 */
final class Leaves {

	/** How a leave that had not ended when the wait passed reads. */
	static final String STILL_LEAVING = "still leaving";

	private static final Duration FOLLOW_STEP = Duration.ofMillis(200);

	private Leaves() {
	}

	/**
	 * Ask each instance to leave, unless no member of the last plan would stay.
	 * @param session the control topic
	 * @param instanceIds the instances
	 * @param force ask even when no member of the last plan would stay
	 * @param timeout each leave's drain timeout; empty for the instance's own
	 * @param applicationId the application, to name it
	 * @param allOrNone ask none when one may not be asked (unknown, its id shared), rather than the others
	 * @return what was asked, or why nothing was
	 */
	static Asked ask(ControlSession session, List<String> instanceIds, boolean force, Optional<Duration> timeout,
			String applicationId, boolean allOrNone) {
		ControlTopicReader reader = session.reader();
		List<LeaveAsk> asks = session.streamsGroupStarts(applicationId)
			.map((starts) -> LeaveAsk.decideInStreamsGroup(starts, instanceIds, force))
			.orElseGet(() -> LeaveAsk.decide(reader.plans(), reader.planEpoch(), instanceIds, force));
		Optional<String> refusal = asks.stream()
			.filter((ask) -> ask.refusal().equals(Optional.of(LeaveAsk.Refusal.NO_MEMBER_WOULD_STAY))
					|| (allOrNone && ask.refusal().isPresent()))
			.findFirst()
			.flatMap((ask) -> ask.describeRefusal(applicationId));
		if (refusal.isPresent()) {
			return new Asked(List.of(), refusal);
		}
		List<Outcome> outcomes = new ArrayList<>();
		Instant now = Instant.now();
		for (LeaveAsk ask : asks) {
			Optional<LeaveRecord> request = ask.request(now, timeout, "cli");
			if (request.isEmpty()) {
				outcomes.add(Outcome.skipped(ask.instanceId(),
						ask.describeRefusal(applicationId).orElseThrow() + " (see 'list')"));
				continue;
			}
			session.write(request.get());
			outcomes.add(Outcome.done(ask.instanceId(), "leaving", request.get().leaveId()));
		}
		return new Asked(outcomes, Optional.empty());
	}

	/**
	 * Follow the control topic until each leave asked records how it ended, or the wait passed.
	 * @param reader the control topic
	 * @param outcomes what was asked
	 * @param wait how long to follow
	 * @return each outcome with how it ended ({@link #STILL_LEAVING} when it had not)
	 */
	static List<Outcome> awaitEnds(ControlTopicReader reader, List<Outcome> outcomes, Duration wait) {
		long until = System.nanoTime() + wait.toNanos();
		while (true) {
			List<Outcome> ended = outcomes.stream().map((outcome) -> endOf(reader, outcome)).toList();
			boolean pending = ended.stream()
				.anyMatch((outcome) -> !outcome.wasSkipped() && outcome.ended().equals(STILL_LEAVING));
			if (!pending || System.nanoTime() - until >= 0) {
				return ended;
			}
			LockSupport.parkNanos(FOLLOW_STEP.toNanos());
		}
	}

	/**
	 * The exit status of leaves followed to their ends.
	 * @param ended the outcomes, none skipped
	 * @return {@link ExitCodes#STILL_LEAVING} when one had not ended, {@link ExitCodes#NOT_DRAINED} when one ended
	 * without a warm hand-over, else {@link ExitCodes#OK}
	 */
	static int statusOf(List<Outcome> ended) {
		if (ended.stream().anyMatch((outcome) -> outcome.ended().equals(STILL_LEAVING))) {
			return ExitCodes.STILL_LEAVING;
		}
		return ended.stream().allMatch((outcome) -> outcome.ended().startsWith("drained")) ? ExitCodes.OK
				: ExitCodes.NOT_DRAINED;
	}

	private static Outcome endOf(ControlTopicReader reader, Outcome outcome) {
		if (outcome.wasSkipped()) {
			return outcome;
		}
		return outcome.endedAs(reader.leaveRecord(outcome.instanceId())
			.filter((leave) -> leave.leaveId().equals(outcome.leaveId()))
			.flatMap(LeaveRecord::ended)
			.map(LeaveRecord.Ended::toString)
			.orElse(STILL_LEAVING));
	}

	/**
	 * What asking did.
	 * @param outcomes one per instance, asked or skipped; none when refused
	 * @param refusal why nothing was asked: no member of the last plan would stay, or one of all or none may not be
	 * asked
	 */
	record Asked(List<Outcome> outcomes, Optional<String> refusal) {
	}

}
