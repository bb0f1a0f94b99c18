package io.github.incrementalrebalance.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * The starter's check of the Spring Boot line it runs on; a Spring Boot 3.5 application with the starter is tried in
 * {@code incremental-rebalance-spring-boot-3-tests}.
 */
class SpringBootLineCheckTests {

	@Test
	void springBoot3IsRefusedNamingTheVersionRunAndTheOnesNeeded() {
		assertThatException().isThrownBy(() -> SpringBootLineCheck.check("3.5.7"))
			.isInstanceOf(UnsupportedSpringBootException.class)
			.withMessage("incremental-rebalance-starter needs Spring Boot 4.0, 4.1 or 4.2; this application runs Spring "
					+ "Boot 3.5.7");
		FailureAnalysis analysis = new UnsupportedSpringBootFailureAnalyzer()
			.analyze(new UnsupportedSpringBootException("3.5.7"));
		assertThat(analysis.getDescription()).contains("runs Spring Boot 3.5.7");
		assertThat(analysis.getAction()).startsWith("Upgrade the application to Spring Boot 4.0, 4.1 or 4.2, or remove "
				+ "incremental-rebalance-starter");
	}

	@Test
	void springBoot4AndVersionsThatSayNothingStart() {
		assertThatNoException().isThrownBy(() -> SpringBootLineCheck.check(SpringBootVersion.getVersion()));
		assertThatNoException().isThrownBy(() -> SpringBootLineCheck.check("4.0.7"));
		assertThatNoException().isThrownBy(() -> SpringBootLineCheck.check("4.1.2"));
		assertThatNoException().isThrownBy(() -> SpringBootLineCheck.check("5.0.0-SNAPSHOT"));
		assertThatNoException().isThrownBy(() -> SpringBootLineCheck.check(null));
		assertThatNoException().isThrownBy(() -> SpringBootLineCheck.check("custom"));
	}

	@Test
	void theCheckRunsInEveryApplication() {
		assertThat(SpringFactoriesLoader.forDefaultResourceLocation().load(ApplicationContextInitializer.class))
			.hasAtLeastOneElementOfType(SpringBootLineCheck.class);
	}

}
