package io.github.incrementalrebalance.autoconfigure;

import io.github.incrementalrebalance.autoconfigure.IncrementalRebalanceProperties.StreamsError;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code rebalance} health indicator.
 */
@AutoConfiguration(after = IncrementalRebalanceAutoConfiguration.class,
		beforeName = "org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration")
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnEnabledHealthIndicator("rebalance")
public final class RebalanceHealthAutoConfiguration {

	@Bean
	@ConditionalOnBean(MemberRuntimes.class)
	@ConditionalOnMissingBean(name = "rebalanceHealthIndicator")
	RebalanceHealthIndicator rebalanceHealthIndicator(MemberRuntimes runtimes,
			IncrementalRebalanceProperties properties) {
		return new RebalanceHealthIndicator(runtimes, new Status(properties.health().problemStatus()),
				properties.health().streamsError() != StreamsError.NONE);
	}

}
