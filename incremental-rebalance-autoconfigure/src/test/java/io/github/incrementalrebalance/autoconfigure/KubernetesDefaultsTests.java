package io.github.incrementalrebalance.autoconfigure;

import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;

import ch.qos.logback.classic.Level;
import io.github.incrementalrebalance.autoconfigure.IncrementalRebalanceProperties.OnDrained;
import io.github.incrementalrebalance.testkit.LogCapture;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On Kubernetes, as Spring Boot detects it from the environment the kubelet gives every container, the settings a pod
 * needs are on unless the application sets them; elsewhere nothing changes.
 */
class KubernetesDefaultsTests {

	private static final Map<String, Object> KUBERNETES_ENVIRONMENT = Map.of("KUBERNETES_SERVICE_HOST", "10.96.0.1",
			"KUBERNETES_SERVICE_PORT", "443");

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IncrementalRebalanceAutoConfiguration.class));

	@Test
	void onKubernetesAPodDrainsOnShutdownStaysUpOnceDrainedAndIsReadyOnceWarm() {
		try (LogCapture log = LogCapture.of(KubernetesDefaults.class)) {
			onKubernetes(this.contextRunner).run((context) -> {
				IncrementalRebalanceProperties properties = context.getBean(IncrementalRebalanceProperties.class);
				assertThat(properties.drain().onShutdown()).isTrue();
				assertThat(properties.drain().onDrained()).isEqualTo(OnDrained.STOP_STREAMS);
				assertThat(properties.readiness().warm()).isTrue();
				assertThat(properties.readiness().timeout()).as("within a Deployment's default progress deadline")
					.isEqualTo(Duration.ofMinutes(8));
			});
			assertThat(log.messages(Level.INFO)).singleElement()
				.asString()
				.startsWith("Running on Kubernetes: {incremental-rebalance.drain.on-shutdown=true, "
						+ "incremental-rebalance.drain.on-drained=stop-streams, incremental-rebalance.readiness.warm=true, "
						+ "incremental-rebalance.readiness.timeout=8m}");
		}
	}

	@Test
	void theApplicationsOwnValuesWinOnKubernetes() {
		try (LogCapture log = LogCapture.of(KubernetesDefaults.class)) {
			onKubernetes(this.contextRunner.withPropertyValues("incremental-rebalance.drain.on-shutdown=false",
					"incremental-rebalance.drain.on-drained=shutdown", "incremental-rebalance.readiness.warm=false"))
				.run((context) -> {
					IncrementalRebalanceProperties properties = context.getBean(IncrementalRebalanceProperties.class);
					assertThat(properties.drain().onShutdown()).isFalse();
					assertThat(properties.drain().onDrained()).isEqualTo(OnDrained.SHUTDOWN);
					assertThat(properties.readiness().warm()).isFalse();
					assertThat(properties.readiness().timeout()).as("the one the application did not set").isEqualTo(
							Duration.ofMinutes(8));
				});
			assertThat(log.messages(Level.INFO)).singleElement()
				.asString()
				.contains("it sets [incremental-rebalance.drain.on-shutdown, incremental-rebalance.drain.on-drained, "
						+ "incremental-rebalance.readiness.warm]");
		}
	}

	@Test
	void offKubernetesNothingChanges() {
		try (LogCapture log = LogCapture.of(KubernetesDefaults.class)) {
			this.contextRunner.withInitializer((context) -> postProcess(context.getEnvironment())).run((context) -> {
				IncrementalRebalanceProperties properties = context.getBean(IncrementalRebalanceProperties.class);
				assertThat(properties.drain().onShutdown()).isFalse();
				assertThat(properties.drain().onDrained()).isEqualTo(OnDrained.SHUTDOWN);
				assertThat(properties.readiness().warm()).isFalse();
				assertThat(properties.readiness().timeout()).isNull();
				assertThat(context.getEnvironment().getPropertySources()
					.contains(KubernetesDefaults.PROPERTY_SOURCE_NAME)).isFalse();
			});
			assertThat(log.messages(Level.INFO)).isEmpty();
		}
	}

	@Test
	void springBootRunsItForEveryApplication() {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Empty.class)
			.web(WebApplicationType.NONE)
			.properties("spring.main.cloud-platform=kubernetes")
			.run()) {
			assertThat(context.getEnvironment().getProperty("incremental-rebalance.drain.on-shutdown")).isEqualTo("true");
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Empty {

	}

	/** The kubelet's environment, as the system environment Spring Boot reads it from. */
	private static ApplicationContextRunner onKubernetes(ApplicationContextRunner runner) {
		return runner.withInitializer((context) -> {
			ConfigurableEnvironment environment = context.getEnvironment();
			environment.getPropertySources()
				.replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, new SystemEnvironmentPropertySource(
						StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, KUBERNETES_ENVIRONMENT));
			postProcess(environment);
		});
	}

	private static void postProcess(ConfigurableEnvironment environment) {
		new KubernetesDefaults(Supplier::get).postProcessEnvironment(environment, new SpringApplication());
	}

}
