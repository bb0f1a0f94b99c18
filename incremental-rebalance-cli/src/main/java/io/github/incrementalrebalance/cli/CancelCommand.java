package io.github.incrementalrebalance.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

import io.github.incrementalrebalance.control.LeaveRecord;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Cancels leaves that have not ended: the instances stay, their learners are dropped.
 */
@Command(name = "cancel", mixinStandardHelpOptions = true, versionProvider = RebalanceCli.Version.class,
		description = "Cancel the leave of instances that have not left yet: they stay in the group.")
final class CancelCommand extends GroupCommand implements Callable<Integer> {

	@Option(names = "--instance-id", required = true, split = ",", paramLabel = "ID",
			converter = InstanceIdConverter.class, description = "The instances whose leave to cancel, comma-separated; a pod's name longer than "
					+ "30 characters stands for the id it was shortened to.")
	List<String> instanceIds;

	@Override
	public Integer call() {
		PrintWriter out = this.spec.commandLine().getOut();
		PrintWriter err = this.spec.commandLine().getErr();
		try (ControlSession session = ControlSession.open(this.connection)) {
			List<Outcome> outcomes = new ArrayList<>();
			for (String instanceId : this.instanceIds) {
				Optional<LeaveRecord> leave = session.reader().leaveRecord(instanceId).filter(LeaveRecord::pending);
				if (leave.isEmpty()) {
					outcomes.add(Outcome.skipped(instanceId, "'" + instanceId + "' is not leaving; nothing to cancel"));
					continue;
				}
				session.write(leave.get().cancel("cli"));
				outcomes.add(Outcome.done(instanceId, "cancelled", leave.get().leaveId()));
			}
			return this.output.printOutcomes(out, err, outcomes,
					(outcome) -> outcome.instanceId() + ": leave " + outcome.leaveId() + " cancelled");
		}
	}

}
