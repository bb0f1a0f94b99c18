package io.github.incrementalrebalance.sample;

import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import io.github.incrementalrebalance.autoconfigure.MemberRuntimes;
import io.github.incrementalrebalance.member.DrainOutcome;
import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.testkit.ExactCountVerifier;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The README's quick start as it stands there: its {@code OrdersApplication} and {@code application.yml}, taken out of
 * the README, compiled and run twice against the test broker; the first instance is asked to leave over HTTP as the
 * README says, drains through the second and closes, and the second counts every order exactly. Only what a machine
 * differs in is given on the command line (the broker's address, free ports, a state directory per instance), with a
 * commit interval of a second so that the counts show without waiting Kafka's 30 s; Spring Security's
 * auto-configuration is left out: the sample application's class path has it, the quick start's does not.
 */
@Tag(TestTags.BROKER)
class QuickStartTests {

	private static final Path README = Path.of("..", "README.md");

	private static final Pattern BLOCK = Pattern
		.compile("(?m)^( *)<!-- quick-start: (\\S+) -->\\n\\1```\\w+\\n(.*?)\\n\\1```$", Pattern.DOTALL);

	private static final List<String> SECURITY_AUTO_CONFIGURATIONS = List.of("SecurityAutoConfiguration",
			"UserDetailsServiceAutoConfiguration", "actuate.web.servlet.ManagementWebSecurityAutoConfiguration",
			"web.servlet.ServletWebSecurityAutoConfiguration", "web.servlet.SecurityFilterAutoConfiguration")
		.stream()
		.map((name) -> "org.springframework.boot.security.autoconfigure." + name)
		.toList();

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path work;

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	void theReadmesQuickStartCompilesRunsAndDrainsAsWritten() throws Exception {
		List<Block> blocks = blocks(Files.readString(README));
		assertThat(blocks).extracting(Block::name).containsExactly("OrdersApplication.java", "application.yml");
		Path sources = Files.createDirectories(this.work.resolve("src"));
		Path classes = Files.createDirectories(this.work.resolve("classes"));
		for (Block block : blocks) {
			Files.writeString(sources.resolve(block.name()), block.text());
		}
		compile(sources.resolve("OrdersApplication.java"), classes);
		broker.createTopics(PageViews.PARTITIONS, "orders", "order-counts");

		ClassLoader testLoader = Thread.currentThread().getContextClassLoader();
		try (URLClassLoader loader = new URLClassLoader(new URL[] { classes.toUri().toURL() }, testLoader)) {
			Class<?> application = loader.loadClass("com.example.orders.OrdersApplication");
			Thread.currentThread().setContextClassLoader(loader);
			try (ConfigurableApplicationContext first = start(application, sources, "first");
					ConfigurableApplicationContext second = start(application, sources, "second");
					TrackingProducer producer = new TrackingProducer(broker.bootstrapServers(), "orders")) {
				MemberRuntime ofFirst = first.getBean(MemberRuntimes.class).all().get(0);
				MemberRuntime ofSecond = second.getBean(MemberRuntimes.class).all().get(0);
				await("both instances run a share of the tasks").atMost(Duration.ofMinutes(1))
					.until(() -> ofFirst.state() == MemberState.STABLE && ofSecond.state() == MemberState.STABLE
							&& get(first, "/actuator/health").body().contains("\"status\":\"UP\""));
				producer.load(PageViews.PARTITIONS, 200, 2);
				await("the group shows both").atMost(Duration.ofSeconds(30))
					.until(() -> get(first, "/actuator/rebalance/group").body(),
							(group) -> group.contains("\"first\"") && group.contains("\"second\""));

				HttpResponse<String> leave = this.http.send(request(first, "/actuator/rebalance/leave")
					.header("Content-Type", "application/json")
					.POST(HttpRequest.BodyPublishers.ofString("{}"))
					.build(), HttpResponse.BodyHandlers.ofString());

				assertThat(leave.statusCode()).as(leave.body()).isEqualTo(202);
				await("the first drained and closed").atMost(Duration.ofMinutes(2)).until(() -> !first.isActive());
				assertThat(ofFirst.drainOutcome()).map(DrainOutcome::kind).contains(DrainOutcome.Kind.DRAINED);
				producer.load(PageViews.PARTITIONS, 200, 1);
				ExactCountVerifier.assertExactCounts(broker.bootstrapServers(), "order-counts",
						producer.acknowledgedCounts(), Duration.ofMinutes(2));
			}
			finally {
				Thread.currentThread().setContextClassLoader(testLoader);
			}
		}
	}

	private ConfigurableApplicationContext start(Class<?> application, Path sources, String instance) {
		return new SpringApplicationBuilder(application).run(
				"--spring.config.location=file:" + sources.resolve("application.yml"),
				"--spring.kafka.bootstrap-servers=" + broker.bootstrapServers(), "--server.port=0",
				"--management.server.port=0",
				"--spring.kafka.streams.state-dir=" + this.work.resolve("state-" + instance),
				"--incremental-rebalance.instance-id=" + instance,
				// counts show at each commit: Kafka's 30 s would be most of the test's time
				"--spring.kafka.streams.properties.commit.interval.ms=1000",
				"--spring.autoconfigure.exclude=" + String.join(",", SECURITY_AUTO_CONFIGURATIONS));
	}

	private HttpResponse<String> get(ConfigurableApplicationContext context, String path)
			throws IOException, InterruptedException {
		return this.http.send(request(context, path).GET().build(), HttpResponse.BodyHandlers.ofString());
	}

	private static HttpRequest.Builder request(ConfigurableApplicationContext context, String path) {
		return HttpRequest.newBuilder(URI.create("http://localhost:"
				+ context.getEnvironment().getProperty("local.management.port") + path));
	}

	private static List<Block> blocks(String readme) {
		List<Block> blocks = new ArrayList<>();
		Matcher matcher = BLOCK.matcher(readme);
		while (matcher.find()) {
			String indent = matcher.group(1);
			String text = matcher.group(3).lines()
				.map((line) -> line.startsWith(indent) ? line.substring(indent.length()) : line)
				.reduce("", (all, line) -> all + line + "\n");
			blocks.add(new Block(matcher.group(2), text));
		}
		return blocks;
	}

	private static void compile(Path source, Path classes) {
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
		int status = compiler.run(null, null, null, "-d", classes.toString(), "-classpath", classPath,
				source.toString());
		if (status != 0) {
			throw new AssertionError("The README's " + source.getFileName()
					+ " does not compile (the compiler's messages are above)");
		}
	}

	private record Block(String name, String text) {
	}

}
