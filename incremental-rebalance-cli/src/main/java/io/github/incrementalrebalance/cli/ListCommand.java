package io.github.incrementalrebalance.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.LockSupport;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Shows the group: the last plan, each member's state, tasks and learners with their progress and ETA, and how the
 * latest leaves ended. With {@code --watch}, again every interval (as JSON, one document per line).
 */
@Command(name = "list", mixinStandardHelpOptions = true, versionProvider = RebalanceCli.Version.class,
		description = { "Show the group: the last plan, each member with its tasks, its learners' "
		+ "progress and ETA, each drain's ETA, and how the latest leaves ended." })
final class ListCommand extends GroupCommand {

	@Option(names = { "-w", "--watch" }, description = "Print the group again every interval until interrupted.")
	boolean watch;

	@Option(names = "--interval", paramLabel = "DURATION", converter = DurationConverter.class, defaultValue = "2s",
			description = "How often --watch prints (default: ${DEFAULT-VALUE}).")
	Duration interval;

	@Option(names = "--updates", paramLabel = "N",
			description = "With --watch: stop after N prints (default: until interrupted).")
	Integer updates;

	@Override
	int run(ControlSession session, PrintWriter out, PrintWriter err) {
		int printed = 0;
		while (true) {
			GroupReport report = GroupReport.read(this.connection.applicationId, session.reader(), Instant.now());
			if (this.output.json() && this.watch) {
				Output.printJsonLine(out, report);
			}
			else if (this.output.json()) {
				Output.printJson(out, report);
			}
			else {
				if (this.watch) {
					out.println("--- " + report.at());
				}
				report.print(out);
			}
			out.flush();
			printed++;
			if (!this.watch || (this.updates != null && printed >= this.updates)) {
				return ExitCodes.OK;
			}
			LockSupport.parkNanos(this.interval.toNanos());
			if (Thread.interrupted()) {
				return ExitCodes.OK;
			}
		}
	}

}
