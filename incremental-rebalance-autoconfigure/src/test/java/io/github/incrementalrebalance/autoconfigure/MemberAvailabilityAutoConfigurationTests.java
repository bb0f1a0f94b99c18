package io.github.incrementalrebalance.autoconfigure;

import ch.qos.logback.classic.Level;
import io.github.incrementalrebalance.testkit.LogCapture;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.ApplicationAvailabilityBean;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

class MemberAvailabilityAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(MemberAvailabilityAutoConfiguration.class,
				ApplicationAvailabilityAutoConfiguration.class))
		.withPropertyValues("incremental-rebalance.readiness.warm=true");

	@Test
	void replacesBootsAvailabilityWithoutAWord() {
		try (LogCapture log = LogCapture.of(MemberAvailabilityAutoConfiguration.class)) {
			this.contextRunner.run((context) -> {
				assertThat(context).getBean(ApplicationAvailability.class).isInstanceOf(MemberAvailability.class);
				assertThat(log.messages(Level.WARN)).isEmpty();
			});
		}
	}

	@Test
	void applicationsOwnAvailabilityIsKeptAndTheLostWarmReadinessSaid() {
		try (LogCapture log = LogCapture.of(MemberAvailabilityAutoConfiguration.class)) {
			this.contextRunner.withUserConfiguration(OwnAvailability.class).run((context) -> {
				assertThat(context).hasNotFailed()
					.getBean(ApplicationAvailability.class)
					.isSameAs(context.getBean("ownAvailability"));
				assertThat(log.messages(Level.WARN)).singleElement()
					.asString()
					.contains("defines its own ApplicationAvailability ([ownAvailability])")
					.contains("readiness means started, not warm");
			});
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnAvailability {

		@Bean
		ApplicationAvailabilityBean ownAvailability() {
			return new ApplicationAvailabilityBean();
		}

	}

}
