package io.github.incrementalrebalance.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.TypeConversionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class RebalanceCliTests {

	@TempDir
	Path directory;

	@Test
	void helpListsTheCommandsAndTheExitCodes() {
		Run help = run("--help");
		assertThat(help.status()).isZero();
		assertThat(help.out()).contains("list", "leave", "cancel", "scale-down", "Exit codes:",
				"3   the cluster or the control topic could not be read or written");
		Run leaveHelp = run("leave", "--help");
		assertThat(leaveHelp.status()).isZero();
		assertThat(leaveHelp.out()).contains("--instance-id=ID", "--timeout=DURATION", "--force", "--output=FORMAT",
				"--wait=DURATION");
		assertThat(help.out()).contains("4   leave --wait, scale-down: a member left without a warm hand-over",
				"5   leave --wait, scale-down: the wait passed before every member asked had");
		assertThat(leaveHelp.out()).as("Kafka's tools' spelling, and the plural kept")
			.contains("--bootstrap-server, --bootstrap-servers=HOSTS");
	}

	@Test
	void badArgumentsSayWhatIsWrongAndExitWithTwo() {
		assertUsageError("name a command: list, leave, cancel or scale-down");
		assertUsageError("Unmatched argument at index 0: 'drain'", "drain");
		assertUsageError("Missing required options: '--bootstrap-servers=HOSTS', '--application-id=APP'", "list");
		assertUsageError("Missing required option: '--instance-id=ID'", "leave", "--bootstrap-server", "h:1",
				"--application-id", "a");
		assertUsageError("Unknown option: '--verbose'", "list", "--verbose", "--bootstrap-servers", "h:1",
				"--application-id", "a");
		assertUsageError("'soon' is not a duration: use 90s, 5m, 1h, 500ms, milliseconds or ISO-8601 (PT5M)", "leave",
				"--bootstrap-servers", "h:1", "--application-id", "a", "--instance-id", "b", "--timeout", "soon");
		assertUsageError("'yaml' is not a format: use text or json", "list", "--bootstrap-servers", "h:1",
				"--application-id", "a", "-o", "yaml");
	}

	@Test
	void aScaleDownNamesOneWorkloadAndWhatItRemoves() {
		String[] group = { "scale-down", "--bootstrap-servers", "h:1", "--application-id", "a", "--wait", "1m" };
		assertUsageError("Missing required argument (specify one of these): (--statefulset=NAME | --deployment=NAME)",
				with(group, "--replicas", "2"));
		assertUsageError("--statefulset=NAME, --deployment=NAME are mutually exclusive",
				with(group, "--statefulset", "s", "--deployment", "d", "--replicas", "2"));
		assertUsageError("--instance-id is for --deployment: a StatefulSet removes its highest ordinals, s-2 and up",
				with(group, "--statefulset", "s", "--replicas", "2", "--instance-id", "s-0"));
		assertUsageError("--deployment needs --instance-id: the pods to remove, by name",
				with(group, "--deployment", "d", "--replicas", "2"));
		assertUsageError("--replicas must be 0 or more, was -1", with(group, "--statefulset", "s", "--replicas", "-1"));
		assertUsageError("Missing required option: '--wait=DURATION'", "scale-down", "--bootstrap-servers", "h:1",
				"--application-id", "a", "--statefulset", "s", "--replicas", "2");
		assertUsageError("instance id", with(group, "--deployment", "d", "--replicas", "2", "--instance-id", "a b"));
	}

	@Test
	void aCommandConfigThatCannotBeReadExitsWithThree() {
		Run run = run("list", "--bootstrap-servers", "h:1", "--application-id", "a", "--command-config",
				this.directory.resolve("missing.properties").toString());
		assertThat(run.status()).isEqualTo(3);
		assertThat(run.err()).contains("error: cannot read --command-config").contains("missing.properties");
	}

	@Test
	void aClusterThatDoesNotAnswerExitsWithThreeAfterThreeOfTheControlTopicsTimeouts() throws IOException {
		Path config = Files.writeString(this.directory.resolve("client.properties"),
				"incremental.rebalance.control.topic.timeout.ms=1000\n");
		long started = System.nanoTime();
		Run run = run("list", "--bootstrap-servers", "127.0.0.1:9", "--application-id", "a", "--command-config",
				config.toString());
		Duration took = Duration.ofNanos(System.nanoTime() - started);
		assertThat(run.status()).isEqualTo(3);
		assertThat(run.err()).contains("error: could not read control topic a-rebalance-control within PT3S (3 times "
				+ "incremental.rebalance.control.topic.timeout.ms, which --command-config may set)");
		assertThat(took).as("the default's 30 s not waited").isLessThan(Duration.ofSeconds(25));

		Files.writeString(config, "incremental.rebalance.control.topic.timeout.ms=soon\n");
		Run bad = run("list", "--bootstrap-servers", "127.0.0.1:9", "--application-id", "a", "--command-config",
				config.toString());
		assertThat(bad.status()).isEqualTo(3);
		assertThat(bad.err()).contains("cannot read --command-config " + config)
			.contains("incremental.rebalance.control.topic.timeout.ms");
	}

	@Test
	void acceptsTheUsualDurationForms() {
		DurationConverter converter = new DurationConverter();
		assertThat(converter.convert("90s")).isEqualTo(Duration.ofSeconds(90));
		assertThat(converter.convert("1h")).isEqualTo(Duration.ofHours(1));
		assertThat(converter.convert("250ms")).isEqualTo(Duration.ofMillis(250));
		assertThat(converter.convert("1500")).isEqualTo(Duration.ofMillis(1500));
		assertThat(converter.convert("PT2M")).isEqualTo(Duration.ofMinutes(2));
		assertThatExceptionOfType(TypeConversionException.class).isThrownBy(() -> converter.convert("PT-2M"))
			.withMessageContaining("is negative");
	}

	private static void assertUsageError(String message, String... args) {
		Run run = run(args);
		assertThat(run.status()).as(run.err()).isEqualTo(2);
		assertThat(run.err()).contains(message).containsPattern("Usage: incremental-rebalance|Possible solutions");
	}

	private static String[] with(String[] first, String... more) {
		String[] all = Arrays.copyOf(first, first.length + more.length);
		System.arraycopy(more, 0, all, first.length, more.length);
		return all;
	}

	private static Run run(String... args) {
		StringWriter out = new StringWriter();
		StringWriter err = new StringWriter();
		int status = RebalanceCli.commandLine().setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true))
			.execute(args);
		return new Run(status, out.toString(), err.toString());
	}

	private record Run(int status, String out, String err) {
	}

}
