package io.github.incrementalrebalance.control;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import ch.qos.logback.classic.Level;
import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.control.ControlTopicProbe.Described;
import io.github.incrementalrebalance.testkit.FaultProxy;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.LogCapture;
import io.github.incrementalrebalance.testkit.TestTags;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * How long the cluster may take to answer a question about the control topic is the application's setting
 * ({@value LearnerConfig#CONTROL_TOPIC_TIMEOUT_MS_CONFIG}), not a bound of the library's: on a link that delivers every
 * byte of the control topic's admin clients 1.5 s late, so that each description of the topic takes at least 6 s, a
 * probe on the default (10 s) keeps describing the topic and reports nothing wrong (it warns that the cluster comes
 * close to its timeout), where the fixed 5 s this setting replaced reported the topic unreadable and refused every
 * leave; a reader whose application allows 2 s says the topic cannot be read and names the setting. Both side by
 * side, on one broker, behind a real TCP proxy.
 */
@Tag(TestTags.BROKER)
class ControlTopicTimeoutIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	/** Each way: a description (two requests, each with its answer: measured) takes four times this, 6 s. */
	private static final Duration SLOW_LINK = Duration.ofMillis(1_500);

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.withFaultProxy();

	@Test
	void aSlowClusterIsGivenTheApplicationsTimeoutToDescribeTheControlTopic() {
		String topic = "slow-control";
		ControlTopic.ensureExists(broker.admin(), topic, -1, true, TIMEOUT);
		ControlClients onDefault = ControlClients.ofControlTopic(application("slow-default", Map.of()));
		assertThat(onDefault.timeout()).isEqualTo(LearnerConfig.DEFAULT_CONTROL_TOPIC_TIMEOUT);
		Map<String, Object> tight = application("slow-tight",
				Map.of(LearnerConfig.CONTROL_TOPIC_TIMEOUT_MS_CONFIG, Duration.ofSeconds(2).toMillis()));
		try (ControlTopicProbe probe = new ControlTopicProbe(topic, onDefault::admin, Duration.ofSeconds(1),
				onDefault.timeout()); ControlTopicReader reader = new ControlTopicReader(tight, topic);
				LogCapture log = LogCapture.of(ControlTopicProbe.class)) {
			probe.start();
			reader.start();
			assertThat(reader.awaitCaughtUp(TIMEOUT)).isTrue();
			await("the first answers, over connections made before the link slowed").atMost(TIMEOUT)
				.until(() -> probe.described().isPresent() && reader.topicId().isPresent());
			long before = probe.described().orElseThrow().answer();

			Set<String> problemsOnDefault = ConcurrentHashMap.newKeySet();
			try (FaultProxy.Fault slow = broker.proxy()
				.delay((clientId) -> clientId.startsWith("slow-") && clientId.endsWith("-rebalance-control-admin"),
						SLOW_LINK)) {
				// the answer on its way as the link slowed may have come back early: the two after it are timed
				await("an answer through the slowed link").atMost(TIMEOUT)
					.until(() -> answered(probe, problemsOnDefault) >= before + 1);
				long firstAt = System.nanoTime();
				await("two more, nothing reported").atMost(Duration.ofSeconds(45))
					.until(() -> answered(probe, problemsOnDefault) >= before + 3);
				Duration twoAnswers = Duration.ofNanos(System.nanoTime() - firstAt);
				await("the reader allowing 2 s says it cannot read the topic").atMost(TIMEOUT)
					.until(() -> reader.problem().isPresent());
				System.out.printf("Two descriptions through a link 1.5 s slow each way took %d ms; with 2 s allowed: %s%n",
						twoAnswers.toMillis(), reader.problem().orElseThrow());
				assertThat(twoAnswers).as("two answers and the probe's two pauses of 1 s: one answer at least took "
						+ "longer than the fixed 5 s this setting replaced").isGreaterThan(Duration.ofSeconds(12));
				assertThat(problemsOnDefault).as("problems the probe on the default reported").isEmpty();
				assertThat(log.messages(Level.WARN)).as("the probe on the default, warning that 6 s is close to 10 s")
					.anySatisfy((warning) -> assertThat(warning).startsWith("The cluster took PT")
						.contains("of the PT10S allowed (incremental.rebalance.control.topic.timeout.ms) to describe "
								+ "control topic slow-control"));
				assertThat(reader.problem()).hasValueSatisfying((problem) -> assertThat(problem)
					.isEqualTo("control topic slow-control cannot be read: the cluster did not describe it within PT2S "
							+ "(incremental.rebalance.control.topic.timeout.ms)"));
				assertThat(reader.outOfDate()).as("its view, read to its end, may miss what was written since: a "
						+ "leader holds its hand-overs").isEqualTo(reader.problem());
				assertThat(reader.unavailable()).as("and is kept: it holds every leave written before").isEmpty();
			}
			await("the reader allowing 2 s, once the link is fast again").atMost(TIMEOUT)
				.until(() -> reader.problem().isEmpty());
			assertThat(reader.outOfDate()).isEmpty();
			assertThat(probe.problem()).isEmpty();
		}
	}

	/**
	 * The check at start, while the cluster does not answer the control topic's admin at all: it gives up within the
	 * application's timeout, so that the next try and a stop are not held for the admin client's own minute.
	 */
	@Test
	void aCheckAtStartThatTheClusterDoesNotAnswerEndsWithinTheApplicationsTimeout() {
		Duration allowed = Duration.ofSeconds(2);
		Map<String, Object> silent = application("silent", Map.of());
		try (FaultProxy.Fault unanswered = broker.proxy()
			.blackHole((clientId) -> clientId.equals("silent-rebalance-control-admin"))) {
			long started = System.nanoTime();
			assertThatExceptionOfType(ControlTopicException.class)
				.isThrownBy(() -> ControlTopic.ensureExists(silent, "silent-control", -1, true, allowed))
				.withMessageContaining("within PT2S (incremental.rebalance.control.topic.timeout.ms)");
			Duration took = Duration.ofNanos(System.nanoTime() - started);
			assertThat(took).as("the check with 2 s allowed, its admin closed").isLessThan(allowed.plusSeconds(3));
		}
	}

	private static long answered(ControlTopicProbe probe, Set<String> problems) {
		probe.problem().ifPresent(problems::add);
		return probe.described().map(Described::answer).orElse(0L);
	}

	private static Map<String, Object> application(String applicationId, Map<String, Object> settings) {
		Map<String, Object> config = new HashMap<>(settings);
		config.put("application.id", applicationId);
		config.put("bootstrap.servers", broker.proxiedBootstrapServers());
		return config;
	}

}
