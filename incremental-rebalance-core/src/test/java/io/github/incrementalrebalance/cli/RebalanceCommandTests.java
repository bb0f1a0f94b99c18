package io.github.incrementalrebalance.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RebalanceCommandTests {

	@Test
	void parsesEveryOption() {
		RebalanceCommand.Arguments arguments = RebalanceCommand.Arguments.parse("leave", "--bootstrap-servers",
				"localhost:9092", "--application-id", "app", "--instance-id", "a,b", "--timeout", "5m");
		assertThat(arguments.instanceIds()).containsExactly("a", "b");
		assertThat(arguments.timeout()).contains(Duration.ofMinutes(5));
		assertThat(arguments.controlTopic()).isEqualTo("app-rebalance-control");
		assertThat(arguments.force()).isFalse();
		assertThat(RebalanceCommand.Arguments.parse("leave", "--force", "--bootstrap-servers", "h:1",
				"--application-id", "app", "--instance-id", "a").force()).isTrue();
	}

	@Test
	void acceptsTheUsualDurationForms() {
		assertThat(RebalanceCommand.Arguments.duration("90s")).isEqualTo(Duration.ofSeconds(90));
		assertThat(RebalanceCommand.Arguments.duration("1h")).isEqualTo(Duration.ofHours(1));
		assertThat(RebalanceCommand.Arguments.duration("1500")).isEqualTo(Duration.ofMillis(1500));
		assertThat(RebalanceCommand.Arguments.duration("PT2M")).isEqualTo(Duration.ofMinutes(2));
		assertThatIllegalArgumentException().isThrownBy(() -> RebalanceCommand.Arguments.duration("soon"))
			.withMessageContaining("--timeout 'soon' is not a duration");
	}

	@Test
	void badArgumentsSayWhatIsWrongAndExitWithTwo() {
		assertUsageError("the first argument must be leave, cancel or list", "drain");
		assertUsageError("--application-id is required", "list", "--bootstrap-servers", "localhost:9092");
		assertUsageError("leave needs --instance-id", "leave", "--bootstrap-servers", "h:1", "--application-id", "a");
		assertUsageError("unknown option '--verbose'", "list", "--verbose", "yes");
	}

	private static void assertUsageError(String message, String... args) {
		ByteArrayOutputStream err = new ByteArrayOutputStream();
		int status = new RebalanceCommand(new PrintStream(new ByteArrayOutputStream()),
				new PrintStream(err, true, StandardCharsets.UTF_8))
			.run(args);
		assertThat(status).isEqualTo(2);
		assertThat(err.toString(StandardCharsets.UTF_8)).contains("error: " + message).contains("usage:");
	}

}
