package io.github.incrementalrebalance.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.LockSupport;

import io.github.incrementalrebalance.control.ControlTopicReader;
import io.github.incrementalrebalance.control.LeaveAsk;
import io.github.incrementalrebalance.control.LeaveRecord;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Marks instances leaving: each drains to learners, then leaves its group and shuts down.
 */
@Command(name = "leave", mixinStandardHelpOptions = true, versionProvider = RebalanceCli.Version.class,
		description = { "Ask instances to leave: each hands its tasks over to warm learners, then "
		+ "leaves the group.", "Refused when no member of the last plan would stay (unless --force), and for an "
				+ "instance id two live members share." })
final class LeaveCommand extends GroupCommand implements Callable<Integer> {

	private static final String STILL_LEAVING = "still leaving";

	private static final Duration FOLLOW_STEP = Duration.ofMillis(200);

	@Option(names = "--instance-id", required = true, split = ",", paramLabel = "ID",
			converter = InstanceIdConverter.class,
			description = "The instances to drain, comma-separated (as 'list' shows them); a pod's name longer "
					+ "than 30 characters stands for the id it was shortened to.")
	List<String> instanceIds;

	@Option(names = "--timeout", paramLabel = "DURATION", converter = DurationConverter.class,
			description = "How long each may wait for its learners before it leaves anyway (90s, 5m, 1h, PT5M). "
					+ "Default: the instance's scale-down timeout.")
	Duration timeout;

	@Option(names = "--force", description = "Leave even when no member of the last plan would stay.")
	boolean force;

	@Option(names = "--wait", paramLabel = "DURATION", converter = DurationConverter.class,
			description = "Wait up to this long until each instance has left, and say how (exit 4 when one left "
					+ "without a warm hand-over, 5 when the wait passed first).")
	Duration wait;

	@Override
	public Integer call() {
		PrintWriter out = this.spec.commandLine().getOut();
		PrintWriter err = this.spec.commandLine().getErr();
		try (ControlSession session = ControlSession.open(this.connection)) {
			ControlTopicReader reader = session.reader();
			List<LeaveAsk> asks = LeaveAsk.decide(reader.plans(), reader.planEpoch(), this.instanceIds, this.force);
			Optional<LeaveAsk> noneWouldStay = asks.stream()
				.filter((ask) -> ask.refusal().equals(Optional.of(LeaveAsk.Refusal.NO_MEMBER_WOULD_STAY)))
				.findFirst();
			if (noneWouldStay.isPresent()) {
				err.println("error: " + noneWouldStay.get().describeRefusal(this.connection.applicationId).orElseThrow()
						+ " (--force)");
				return ExitCodes.REFUSED;
			}
			List<Outcome> outcomes = new ArrayList<>();
			Instant now = Instant.now();
			for (LeaveAsk ask : asks) {
				Optional<LeaveRecord> request = ask.request(now, Optional.ofNullable(this.timeout), "cli");
				if (request.isEmpty()) {
					outcomes.add(Outcome.skipped(ask.instanceId(),
							ask.describeRefusal(this.connection.applicationId).orElseThrow() + " (see 'list')"));
					continue;
				}
				session.write(request.get());
				outcomes.add(Outcome.done(ask.instanceId(), "leaving", request.get().leaveId()));
			}
			if (this.wait == null) {
				return this.output.printOutcomes(out, err, outcomes, this::leavingLine);
			}
			if (!this.output.json()) {
				outcomes.stream().filter((outcome) -> !outcome.wasSkipped()).map(this::leavingLine).forEach(out::println);
				out.flush();
			}
			List<Outcome> ended = awaitEnds(reader, outcomes);
			int status = this.output.printOutcomes(out, err, ended,
					(outcome) -> outcome.instanceId() + ": " + outcome.ended());
			if (status != ExitCodes.OK) {
				return status;
			}
			if (ended.stream().anyMatch((outcome) -> outcome.ended().equals(STILL_LEAVING))) {
				return ExitCodes.STILL_LEAVING;
			}
			return ended.stream().allMatch((outcome) -> outcome.ended().startsWith("drained")) ? ExitCodes.OK
					: ExitCodes.NOT_DRAINED;
		}
	}

	private String leavingLine(Outcome outcome) {
		return outcome.instanceId() + ": leaving (leave " + outcome.leaveId()
				+ ((this.timeout != null) ? ", timeout " + this.timeout : "") + ")";
	}

	/**
	 * Follow the control topic until each leave written records how it ended, or the wait passed.
	 */
	private List<Outcome> awaitEnds(ControlTopicReader reader, List<Outcome> outcomes) {
		long until = System.nanoTime() + this.wait.toNanos();
		while (true) {
			List<Outcome> ended = outcomes.stream().map((outcome) -> endOf(reader, outcome)).toList();
			boolean pending = ended.stream().anyMatch((outcome) -> !outcome.wasSkipped()
					&& outcome.ended().equals(STILL_LEAVING));
			if (!pending || System.nanoTime() - until >= 0) {
				return ended;
			}
			LockSupport.parkNanos(FOLLOW_STEP.toNanos());
		}
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

}
