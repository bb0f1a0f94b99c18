package io.github.incrementalrebalance.sample;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.incrementalrebalance.autoconfigure.MemberRuntimes;
import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.member.TaskRole;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.TestTags;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.aot.AotDetector;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample processed ahead of time (the Boot plugin's {@code process-aot} in the sample's build, what a JVM AOT
 * cache, CDS or a native image uses) and started with its AOT initializers, each switch flipped from the value the
 * build saw: Spring AOT decides bean conditions at build time, so a switch that was one would be ignored here. The
 * build saw the sample's {@code application.yml}: drain on shutdown and warm readiness on, the context closed once
 * drained, the starter on. An integration test, so that the generated classes (compiled into the sample's classes at
 * {@code prepare-package}) are there; the instances run in this JVM.
 */
@Tag(TestTags.BROKER)
@ExtendWith(OutputCaptureExtension.class)
class AotSwitchesIT {

	/** A broker of its own: the sample's topics and group are fixed, and the other ITs start from them empty. */
	@RegisterExtension
	static final KafkaBroker broker = new KafkaBroker();

	/** Below the state a task has, so that b learns its share before it takes it. */
	private static final String ACCEPTABLE_LAG = "--spring.kafka.streams.properties.acceptable.recovery.lag=100";

	@TempDir
	Path stateRoot;

	@BeforeAll
	static void useTheGeneratedInitializers() {
		System.setProperty(AotDetector.AOT_ENABLED, "true");
	}

	@AfterAll
	static void forgetThem() {
		System.clearProperty(AotDetector.AOT_ENABLED);
	}

	@Test
	void theAotProcessedSampleHonoursTheSwitchesItRunsWith(CapturedOutput output) throws Exception {
		List<ConfigurableApplicationContext> started = new ArrayList<>();
		try (TrackingProducer producer = new TrackingProducer(broker.bootstrapServers(), PageViews.INPUT)) {
			ConfigurableApplicationContext a = start(started, "a", ACCEPTABLE_LAG,
					"--incremental-rebalance.drain.on-drained=stop-streams");
			assertThat(output).as("run with its AOT initializers").contains("Starting AOT-processed SampleApplication");
			MemberRuntime ofA = runtime(a);
			await("a runs every task").atMost(Duration.ofMinutes(1))
				.until(() -> active(ofA) == PageViews.PARTITIONS);
			producer.load(PageViews.PARTITIONS, 2_000, 1);

			ConfigurableApplicationContext b = start(started, "b", ACCEPTABLE_LAG,
					"--incremental-rebalance.readiness.warm=false", "--incremental-rebalance.drain.on-shutdown=false",
					"--sample.restore-rate=1000");
			MemberRuntime ofB = runtime(b);
			await("b learns its share slowly and reports ready all the same (readiness.warm=false)")
				.atMost(Duration.ofMinutes(1))
				.until(() -> learning(ofB) && readiness(b) == ReadinessState.ACCEPTING_TRAFFIC);
			await("b holds its share").atMost(Duration.ofMinutes(1))
				.until(() -> active(ofB) > 0 && !learning(ofB) && !learning(ofA));

			assertThat(ofA.leave(Optional.empty(), "test")).as("a asked to leave").isTrue();
			await("a drained").atMost(Duration.ofMinutes(1)).until(() -> ofA.state() == MemberState.CLOSED);
			assertThat(a.isActive()).as("a stays up (drain.on-drained=stop-streams)").isTrue();
			assertThat(a.getBean(StreamsBuilderFactoryBean.class).isRunning()).as("its Kafka Streams stopped").isFalse();
			assertThat(readiness(a)).isEqualTo(ReadinessState.REFUSING_TRAFFIC);
			await("b runs every task").atMost(Duration.ofMinutes(1))
				.until(() -> active(ofB) == PageViews.PARTITIONS);

			List<MemberState> statesOfB = new CopyOnWriteArrayList<>();
			ofB.addStateListener(statesOfB::add);
			b.close();
			assertThat(statesOfB).as("b's shutdown closes it without a drain (drain.on-shutdown=false)")
				.doesNotContain(MemberState.LEAVING);

			ConfigurableApplicationContext c = start(started, "c", "--incremental-rebalance.enabled=false",
					"--spring.kafka.streams.application-id=aot-disabled");
			assertThat(c.getBean(MemberRuntimes.class).all()).as("no member (incremental-rebalance.enabled=false)")
				.isEmpty();
			assertThat(output).contains("incremental-rebalance.enabled=false: no Kafka Streams of this application are "
					+ "wired");
		}
		finally {
			started.forEach(ConfigurableApplicationContext::close);
		}
	}

	private ConfigurableApplicationContext start(List<ConfigurableApplicationContext> started, String instance,
			String... arguments) {
		List<String> all = new ArrayList<>(List.of("--server.port=0",
				"--spring.kafka.bootstrap-servers=" + broker.bootstrapServers(),
				"--spring.kafka.streams.state-dir=" + this.stateRoot.resolve(instance),
				"--incremental-rebalance.instance-id=" + instance, "--sample.generate=false",
				"--sample.security.operator-password=operator-secret"));
		all.addAll(List.of(arguments));
		// the main class names the generated initializer; it would be the test runner's, deduced from the stack
		ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class)
			.main(SampleApplication.class)
			.run(all.toArray(String[]::new));
		started.add(context);
		return context;
	}

	private static MemberRuntime runtime(ConfigurableApplicationContext context) {
		return context.getBean(MemberRuntimes.class).all().get(0);
	}

	private static long active(MemberRuntime runtime) {
		return runtime.tasks().stream().filter((task) -> task.role() == TaskRole.ACTIVE).count();
	}

	private static boolean learning(MemberRuntime runtime) {
		return runtime.tasks().stream().anyMatch((task) -> task.role() == TaskRole.LEARNING);
	}

	private static ReadinessState readiness(ConfigurableApplicationContext context) {
		return context.getBean(ApplicationAvailability.class).getReadinessState();
	}

}
