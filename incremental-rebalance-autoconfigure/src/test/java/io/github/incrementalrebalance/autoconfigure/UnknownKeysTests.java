package io.github.incrementalrebalance.autoconfigure;

import java.util.Map;

import ch.qos.logback.classic.Level;
import io.github.incrementalrebalance.testkit.LogCapture;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A key under {@code incremental-rebalance.} that the starter does not know would be ignored by Spring without a word:
 * an application that upgraded with a name from before 1.0, or misspelled one, would silently not drain.
 */
class UnknownKeysTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IncrementalRebalanceAutoConfiguration.class));

	@Test
	void aNameFromBefore10StartsWithAWarnNamingTheKeyThatReplacedIt() {
		try (LogCapture log = LogCapture.of(UnknownKeysCheck.class)) {
			this.contextRunner.withPropertyValues("incremental-rebalance.drain-on-shutdown=true").run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(IncrementalRebalanceProperties.class).drain().onShutdown())
					.as("the old name is not read").isFalse();
			});
			assertThat(log.messages(Level.WARN)).singleElement()
				.asString()
				.startsWith("incremental-rebalance.drain-on-shutdown (")
				.contains("is not a key of incremental-rebalance and is ignored: before 1.0 it was the name of "
						+ "incremental-rebalance.drain.on-shutdown, set that instead")
				.contains("incremental-rebalance.fail-on-unknown-keys=true refuses to start instead");
		}
	}

	@Test
	void aMisspelledKeyStartsWithAWarnNamingTheNearestKey() {
		try (LogCapture log = LogCapture.of(UnknownKeysCheck.class)) {
			this.contextRunner.withPropertyValues("incremental-rebalance.drain.on-shutdwn=true")
				.run((context) -> assertThat(context).hasNotFailed());
			assertThat(log.messages(Level.WARN)).singleElement()
				.asString()
				.contains("incremental-rebalance.drain.on-shutdwn (")
				.contains("the nearest key is incremental-rebalance.drain.on-shutdown");
		}
	}

	/**
	 * Kubernetes' way: environment variables, known in the two forms Spring Boot binds (the dashes dropped, or made
	 * underscores); a third form, which it ignores without a word, is reported.
	 */
	@Test
	void environmentVariablesAreCheckedAsSpringBootBindsThem() {
		try (LogCapture log = LogCapture.of(UnknownKeysCheck.class)) {
			this.contextRunner.withInitializer((context) -> context.getEnvironment()
				.getPropertySources()
				.replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
						new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
								Map.of("INCREMENTALREBALANCE_DRAIN_ONSHUTDOWN", "true",
										"INCREMENTAL_REBALANCE_READINESS_WARM", "true",
										"INCREMENTAL_REBALANCE_DRAIN_STALLTIMEOUT", "3m", "PATH", "/usr/bin"))))
				.run((context) -> {
					IncrementalRebalanceProperties properties = context.getBean(IncrementalRebalanceProperties.class);
					assertThat(properties.drain().onShutdown()).isTrue();
					assertThat(properties.readiness().warm()).isTrue();
					assertThat(properties.drain().stallTimeout()).as("a form Spring Boot does not bind").isNull();
				});
			assertThat(log.messages(Level.WARN)).singleElement()
				.asString()
				.startsWith("INCREMENTAL_REBALANCE_DRAIN_STALLTIMEOUT (systemEnvironment)")
				.contains("the nearest key is incremental-rebalance.drain.stall-timeout");
		}
	}

	@Test
	void everyFormSpringBootBindsIsKnown() {
		try (LogCapture log = LogCapture.of(UnknownKeysCheck.class)) {
			this.contextRunner.withInitializer((context) -> context.getEnvironment()
				.getPropertySources()
				.addFirst(new MapPropertySource("yaml", Map.of("incremental-rebalance.drain.onShutdown", "true",
						"incremental-rebalance.readiness.warm", "true", "incremental-rebalance.control-topic.name",
						"topic", "incremental_rebalance.placement.balancing_factor", "1.5"))))
				.run((context) -> {
					IncrementalRebalanceProperties properties = context.getBean(IncrementalRebalanceProperties.class);
					assertThat(properties.drain().onShutdown()).isTrue();
					assertThat(properties.readiness().warm()).isTrue();
				});
			assertThat(log.messages(Level.WARN)).isEmpty();
		}
	}

	@Test
	void failOnUnknownKeysRefusesTheStartAndTheFailureAnalyzerNamesEveryKey() {
		this.contextRunner
			.withPropertyValues("incremental-rebalance.fail-on-unknown-keys=true",
					"incremental-rebalance.warm-readiness=true", "incremental-rebalance.drain.on-shutdwn=true")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause().isInstanceOf(UnknownKeysException.class);
				FailureAnalysis analysis = new UnknownKeysFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis.getDescription())
					.contains("incremental-rebalance.warm-readiness (")
					.contains("before 1.0 it was the name of incremental-rebalance.readiness.warm")
					.contains("incremental-rebalance.drain.on-shutdwn (")
					.contains("the nearest key is incremental-rebalance.drain.on-shutdown");
				assertThat(analysis.getAction()).contains("incremental-rebalance.fail-on-unknown-keys=false");
			});
	}

}
