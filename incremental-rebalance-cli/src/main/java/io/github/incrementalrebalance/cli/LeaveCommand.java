package io.github.incrementalrebalance.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Marks instances leaving: each drains to learners, then leaves its group and shuts down.
 */
@Command(name = "leave", mixinStandardHelpOptions = true, versionProvider = RebalanceCli.Version.class,
		description = { "Ask instances to leave: each hands its tasks over to warm learners, then "
		+ "leaves the group.", "Refused when no member of the last plan would stay (unless --force), and for an "
				+ "instance id two live members share." })
final class LeaveCommand extends GroupCommand {

	@Option(names = "--instance-id", required = true, split = ",", paramLabel = "ID",
			converter = InstanceIdConverter.class,
			description = "The instances to drain, comma-separated (as 'list' shows them); a pod's name longer "
					+ "than 30 characters stands for the id it was shortened to.")
	List<String> instanceIds;

	@Mixin
	LeaveOptions leave;

	@Option(names = "--wait", paramLabel = "DURATION", converter = DurationConverter.class,
			description = "Wait up to this long until each instance has left, and say how (exit 4 when one left "
					+ "without a warm hand-over, 5 when the wait passed first).")
	Duration wait;

	@Override
	int run(ControlSession session, PrintWriter out, PrintWriter err) {
		Leaves.Asked asked = Leaves.ask(session, this.instanceIds, this.leave.force, this.leave.timeout(),
				this.connection.applicationId, false);
		if (asked.refusal().isPresent()) {
			err.println("error: " + asked.refusal().get() + " (--force)");
			return ExitCodes.REFUSED;
		}
		List<Outcome> outcomes = asked.outcomes();
		if (this.wait == null) {
			return this.output.printOutcomes(out, err, outcomes, this::leavingLine);
		}
		if (!this.output.json()) {
			outcomes.stream().filter((outcome) -> !outcome.wasSkipped()).map(this::leavingLine).forEach(out::println);
			out.flush();
		}
		List<Outcome> ended = Leaves.awaitEnds(session.reader(), outcomes, this.wait);
		int status = this.output.printOutcomes(out, err, ended,
				(outcome) -> outcome.instanceId() + ": " + outcome.ended());
		return (status != ExitCodes.OK) ? status : Leaves.statusOf(ended);
	}

	private String leavingLine(Outcome outcome) {
		return outcome.instanceId() + ": leaving (leave " + outcome.leaveId()
				+ this.leave.timeout().map((timeout) -> ", timeout " + timeout).orElse("") + ")";
	}

}
