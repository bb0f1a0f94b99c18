package io.github.incrementalrebalance.cli;

import org.apache.kafka.common.KafkaException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;

/**
 * The command line of incremental-rebalance, for operators and scripts that act on many instances at once (a host
 * swap marks every old instance leaving). It reads and writes the group's control topic, so it runs anywhere the
 * cluster is reachable:
 * <pre>
 * java -jar incremental-rebalance-cli-all.jar list --bootstrap-server HOSTS --application-id APP [--watch]
 * java -jar incremental-rebalance-cli-all.jar leave --bootstrap-server HOSTS --application-id APP \
 *     --instance-id a,b --timeout 5m
 * java -jar incremental-rebalance-cli-all.jar cancel --bootstrap-server HOSTS --application-id APP --instance-id a
 * java -jar incremental-rebalance-cli-all.jar scale-down --bootstrap-server HOSTS --application-id APP \
 *     --statefulset S --replicas 2 --wait 10m
 * </pre>
 */
@Command(name = "incremental-rebalance", mixinStandardHelpOptions = true, versionProvider = RebalanceCli.Version.class,
		subcommands = { ListCommand.class, LeaveCommand.class, CancelCommand.class, ScaleDownCommand.class },
		description = "Drain Kafka Streams instances to warm learners, cancel drains, and watch the group.",
		exitCodeListHeading = "%nExit codes:%n",
		exitCodeList = { "0:done", "1:an instance was skipped (unknown, not leaving, its id shared) or the leave refused; "
				+ "cancel: an instance had left when the cancel came",
				"2:the command line is wrong", "3:the cluster or the control topic could not be read or written",
				"4:leave --wait, scale-down: a member left without a warm hand-over (forced, left-without-learners)",
				"5:leave --wait, scale-down: the wait passed before every member asked had left; cancel: before every "
						+ "one answered" })
public final class RebalanceCli implements Runnable {

	@CommandLine.Spec
	CommandLine.Model.CommandSpec spec;

	public static void main(String[] args) {
		System.exit(commandLine().execute(args));
	}

	/**
	 * The command line, ready to execute; its streams can be replaced for tests.
	 * @return the command line
	 */
	static CommandLine commandLine() {
		return new CommandLine(new RebalanceCli()).setCaseInsensitiveEnumValuesAllowed(true)
			.setExecutionExceptionHandler((ex, line, parsed) -> {
				line.getErr().println("error: " + ex.getMessage());
				line.getErr().flush();
				if (ex instanceof ControlSession.Unavailable || ex instanceof KafkaException) {
					return ExitCodes.UNAVAILABLE;
				}
				throw ex;
			});
	}

	@Override
	public void run() {
		throw new CommandLine.ParameterException(this.spec.commandLine(),
				"name a command: list, leave, cancel or scale-down");
	}

	/**
	 * The version in the jar's manifest.
	 */
	static final class Version implements IVersionProvider {

		@Override
		public String[] getVersion() {
			String version = RebalanceCli.class.getPackage().getImplementationVersion();
			return new String[] { "incremental-rebalance " + ((version != null) ? version : "(development build)") };
		}

	}

}
