package io.github.incrementalrebalance.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * What every command has: where the group is, how to print, and a session on the group's control topic that is open
 * while the command runs.
 */
abstract class GroupCommand implements Callable<Integer> {

	@Spec
	CommandSpec spec;

	@Mixin
	ConnectionOptions connection;

	@Mixin
	Output output;

	@Override
	public final Integer call() {
		validate();
		try (ControlSession session = ControlSession.open(this.connection)) {
			return run(session, this.spec.commandLine().getOut(), this.spec.commandLine().getErr());
		}
	}

	/**
	 * Refuses options that contradict each other, before anything reaches the cluster.
	 * @throws picocli.CommandLine.ParameterException naming what was wrong and what is accepted
	 */
	void validate() {
	}

	/**
	 * @return the command's exit code ({@link ExitCodes})
	 */
	abstract int run(ControlSession session, PrintWriter out, PrintWriter err);

}
