package io.github.incrementalrebalance.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the members' Micrometer meters.
 */
@AutoConfiguration(after = IncrementalRebalanceAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
public final class RebalanceMetricsAutoConfiguration {

	@Bean
	@ConditionalOnBean(MemberRuntimes.class)
	@ConditionalOnMissingBean
	RebalanceMetrics rebalanceMetrics(MemberRuntimes runtimes) {
		return new RebalanceMetrics(runtimes);
	}

}
