package io.github.incrementalrebalance.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.member.DrainOutcome;
import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.testkit.CountingApplication;
import io.github.incrementalrebalance.testkit.JavaCommand;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.RestoreThrottle;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import io.github.incrementalrebalance.testkit.StreamsLauncher;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The packaged jar as an operator runs it, {@code java -jar} from an empty directory, against a group of three
 * members on a real broker whose restores are throttled until the test lets them go: list (as a table, as JSON,
 * watched with the learners' ETAs), leave, cancel, and the exit statuses.
 */
@Tag(TestTags.BROKER)
@Tag(TestTags.CLIENT_LINE)
class CommandLineJarIT {

	private static final int PARTITIONS = 6;

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	/**
	 * Learners of b's tasks would need about 100 s at this rate: long enough for the watched list to see them progress
	 * with an ETA, after which the test holds them until it releases them, so no learner is ready before the cancel
	 * however long the commands, each a JVM of its own, take on a busy machine (a ready learner would drain b).
	 */
	private final RestoreThrottle throttle = RestoreThrottle.of(50);

	@TempDir
	Path stateRoot;

	@TempDir
	Path workingDirectory;

	@Test
	void listsLeavesAndCancelsFromAnEmptyDirectory() throws Exception {
		CountingApplication run = new CountingApplication(broker, "cli-jar", PARTITIONS);
		try (TrackingProducer producer = run.producer();
				StreamsLauncher launcher = run.launcher(this.stateRoot)
					.property(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, 1_000L)
					.property(LearnerConfig.PROGRESS_INTERVAL_MS_CONFIG, 1_000L)) {
			StreamsInstance a = start(launcher, "a");
			StreamsInstance b = start(launcher, "b");
			StreamsInstance c = start(launcher, "c");
			run.loadAndSettle(producer, 5_000, a, b, c);
			assertThat(Files.list(this.workingDirectory)).as("a clean directory").isEmpty();

			Result version = jar("--version");
			assertThat(version.status()).isZero();
			assertThat(version.out()).startsWith("incremental-rebalance 0.");

			Result json = jar("list", "-o", "json");
			assertThat(json.status()).as(json.err()).isZero();
			JsonNode group = new ObjectMapper().readTree(json.out());
			assertThat(group.path("applicationId").asString()).isEqualTo("cli-jar");
			assertThat(group.path("members").findValuesAsString("instanceId")).containsExactly("a", "b", "c");
			assertThat(group.path("members").findValuesAsString("state")).containsOnly("STABLE");
			assertThat(group.path("members").findValuesAsString("mode")).containsOnly("incremental");

			Result unknown = jar("leave", "--instance-id", "gone-9");
			assertThat(unknown.status()).isEqualTo(1);
			assertThat(unknown.err()).contains("unknown instance id 'gone-9'");
			assertThat(jar("leave").status()).as("no --instance-id").isEqualTo(2);

			Result leave = jar("leave", "--instance-id", "b", "--timeout", "5m");
			assertThat(leave.status()).as(leave.err()).isZero();
			assertThat(leave.out()).startsWith("b: leaving (leave ").contains("timeout PT5M");
			await("b leaving").atMost(Duration.ofSeconds(30)).until(() -> b.runtime().state() == MemberState.LEAVING);

			await("a watched list shows b's learners with an ETA").atMost(Duration.ofMinutes(1)).until(() -> {
				Result watched = jar("list", "--watch", "--interval", "1s", "--updates", "3");
				assertThat(watched.status()).as(watched.err()).isZero();
				assertThat(watched.out()).contains("--- ");
				return watched.out().matches("(?s).*\\d+_\\d+ lag [\\d,]+ \\([\\d,]+/s, ETA \\d+s\\).*")
						&& watched.out().matches("(?s).*\\bb\\s+\\S+\\s+LEAVING, 0/\\d ready, ETA \\d+s.*");
			});
			this.throttle.hold();
			assertThat(b.runtime().state()).as("throttled: still learning").isEqualTo(MemberState.LEAVING);
			Result stream = jar("list", "-o", "json", "--watch", "--interval", "1s", "--updates", "2");
			assertThat(stream.status()).as(stream.err()).isZero();
			assertThat(stream.out().lines().toList()).as("one JSON document per line").hasSize(2)
				.allSatisfy((line) -> assertThat(new ObjectMapper().readTree(line).path("members").isArray()).isTrue());

			Result cancel = jar("cancel", "--instance-id", "b", "-o", "json");
			assertThat(cancel.status()).as(cancel.err()).isZero();
			assertThat(new ObjectMapper().readTree(cancel.out()).path(0).path("result").asString()).isEqualTo("cancelled");
			await("b stable again").atMost(Duration.ofSeconds(30)).until(() -> b.runtime().state() == MemberState.STABLE);
			Result again = jar("cancel", "--instance-id", "b");
			assertThat(again.status()).isEqualTo(1);
			assertThat(again.err()).contains("'b' is not leaving; nothing to cancel");

			this.throttle.release();
			assertThat(jar("leave", "--instance-id", "b").status()).isZero();
			await("b drained and closed").atMost(Duration.ofMinutes(2))
				.until(() -> b.runtime().state() == MemberState.CLOSED);
			assertThat(b.runtime().drainOutcome()).hasValueSatisfying((outcome) -> assertThat(outcome.kind())
				.isEqualTo(DrainOutcome.Kind.DRAINED));
			await("the list shows how b's leave ended").atMost(Duration.ofSeconds(30))
				.until(() -> jar("list").out().matches("(?s).*left:\\s+b .* drained \\(learners-ready\\).*"));
			run.verifyCounts(producer);
		}
	}

	private StreamsInstance start(StreamsLauncher launcher, String name) {
		return launcher.instance(name).restoreThrottle(this.throttle).memberRuntime().start();
	}

	/**
	 * Run the jar with the group's connection options after the command's own.
	 */
	private Result jar(String... args) throws IOException, InterruptedException {
		List<String> command = JavaCommand.of("-jar", Path.of(System.getProperty("cli.jar")).toAbsolutePath().toString());
		command.addAll(List.of(args));
		if (args.length > 0 && !args[0].startsWith("-")) {
			command.addAll(List.of("--bootstrap-servers", broker.bootstrapServers(), "--application-id", "cli-jar"));
		}
		Path out = Files.createTempFile("cli-out", ".txt");
		Path err = Files.createTempFile("cli-err", ".txt");
		Process process = new ProcessBuilder(command).directory(this.workingDirectory.toFile())
			.redirectOutput(out.toFile())
			.redirectError(err.toFile())
			.start();
		assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("%s finished", command).isTrue();
		Result result = new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
				Files.readString(err, StandardCharsets.UTF_8));
		System.out.printf("$ %s%n%s%s(exit %d)%n", String.join(" ", List.of(args)), result.out(), result.err(),
				result.status());
		return result;
	}

	private record Result(int status, String out, String err) {
	}

}
