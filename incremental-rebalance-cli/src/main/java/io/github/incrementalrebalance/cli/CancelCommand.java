package io.github.incrementalrebalance.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.github.incrementalrebalance.control.LeaveCancel;
import io.github.incrementalrebalance.control.LeaveRecord;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Cancels leaves that have not ended, and says what came of each: the instance stayed (its learners are dropped), it
 * had left or was handing over when the cancel came, or it has not answered within {@code --wait}.
 */
@Command(name = "cancel", mixinStandardHelpOptions = true, versionProvider = RebalanceCli.Version.class,
		description = "Cancel the leave of instances that have not left yet: they stay in the group. Each answers on "
				+ "its own: exit 1 when one had left (or was handing over) when the cancel came, 5 when one has not "
				+ "answered within --wait.")
final class CancelCommand extends GroupCommand {

	@Option(names = "--instance-id", required = true, split = ",", paramLabel = "ID",
			converter = InstanceIdConverter.class,
			description = "The instances whose leave to cancel, comma-separated; a pod's name longer than 30 "
					+ "characters stands for the id it was shortened to.")
	List<String> instanceIds;

	@Option(names = "--wait", paramLabel = "DURATION", converter = DurationConverter.class, defaultValue = "30s",
			description = "How long to wait for each instance's answer (default ${DEFAULT-VALUE}): it stays in the "
					+ "round it asks for, seconds on a healthy cluster. A cancel not answered in time still stands.")
	Duration wait;

	@Override
	int run(ControlSession session, PrintWriter out, PrintWriter err) {
		List<Outcome> outcomes = new ArrayList<>();
		for (String instanceId : this.instanceIds) {
			Optional<LeaveRecord> leave = session.reader().leaveRecord(instanceId).filter(LeaveRecord::pending);
			if (leave.isEmpty()) {
				outcomes.add(Outcome.skipped(instanceId, "'" + instanceId + "' is not leaving; nothing to cancel"));
				continue;
			}
			LeaveCancel.Result answer = session.cancel(leave.get(), this.wait);
			String leaveId = leave.get().leaveId();
			outcomes.add(switch (answer.answer()) {
				case CANCELLED -> Outcome.done(instanceId, "cancelled", leaveId);
				case LEFT_FIRST -> Outcome.done(instanceId, "left-first", leaveId)
					.endedAs(answer.ended().map(LeaveRecord.Ended::toString).orElse("left"));
				case UNANSWERED -> Outcome.done(instanceId, "unanswered", leaveId);
			});
		}
		int status = this.output.printOutcomes(out, err, outcomes, this::line);
		boolean leftFirst = outcomes.stream().anyMatch((outcome) -> outcome.result().equals("left-first"));
		if (status != ExitCodes.OK || leftFirst) {
			return ExitCodes.REFUSED;
		}
		return outcomes.stream().anyMatch((outcome) -> outcome.result().equals("unanswered"))
				? ExitCodes.STILL_LEAVING : ExitCodes.OK;
	}

	private String line(Outcome outcome) {
		return switch (outcome.result()) {
			case "cancelled" -> outcome.instanceId() + ": leave " + outcome.leaveId() + " cancelled, it stays";
			case "left-first" -> outcome.instanceId() + ": had left when the cancel came: " + outcome.ended();
			default -> outcome.instanceId() + ": the cancel of leave " + outcome.leaveId() + " is written; no answer "
					+ "within " + this.wait + ": it stays if it reads the cancel before it hands over (see 'list')";
		};
	}

}
