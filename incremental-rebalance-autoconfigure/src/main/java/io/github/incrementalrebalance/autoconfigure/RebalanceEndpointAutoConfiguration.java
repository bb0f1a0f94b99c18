package io.github.incrementalrebalance.autoconfigure;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code rebalance} actuator endpoint.
 */
@AutoConfiguration(after = IncrementalRebalanceAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnAvailableEndpoint(RebalanceEndpoint.class)
public final class RebalanceEndpointAutoConfiguration {

	@Bean
	@ConditionalOnBean(MemberRuntimes.class)
	@ConditionalOnMissingBean
	RebalanceEndpoint rebalanceEndpoint(MemberRuntimes runtimes) {
		return new RebalanceEndpoint(runtimes);
	}

}
