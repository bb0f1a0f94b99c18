package io.github.incrementalrebalance.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

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
			return this.output.printOutcomes(out, err, outcomes, (outcome) -> outcome.instanceId() + ": leaving (leave "
					+ outcome.leaveId() + ((this.timeout != null) ? ", timeout " + this.timeout : "") + ")");
		}
	}

}
