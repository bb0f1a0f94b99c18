package io.github.incrementalrebalance.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Arrays;

import io.github.incrementalrebalance.testkit.KafkaBroker;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The command line run in the test's JVM as an operator runs it: what it printed, out and err together, is printed
 * again for the test's log and returned once its exit status is the one expected.
 */
final class CliRun {

	private CliRun() {
	}

	/**
	 * @param expectedStatus the exit status the command must end with
	 * @param args the command line
	 * @return what it printed
	 */
	static String expecting(int expectedStatus, String... args) {
		StringWriter out = new StringWriter();
		StringWriter err = new StringWriter();
		int status = RebalanceCli.commandLine()
			.setOut(new PrintWriter(out, true))
			.setErr(new PrintWriter(err, true))
			.execute(args);
		String printed = out + err.toString();
		System.out.println(printed);
		assertThat(status).as(printed).isEqualTo(expectedStatus);
		return printed;
	}

	/**
	 * As {@link #expecting}, connected to a broker's application.
	 * @param broker the broker
	 * @param applicationId the application
	 * @param expectedStatus the exit status the command must end with
	 * @param command the command and its options
	 * @return what it printed
	 */
	static String against(KafkaBroker broker, String applicationId, int expectedStatus, String... command) {
		String[] args = Arrays.copyOf(command, command.length + 4);
		System.arraycopy(new String[] { "--bootstrap-servers", broker.bootstrapServers(), "--application-id",
				applicationId }, 0, args, command.length, 4);
		return expecting(expectedStatus, args);
	}

}
