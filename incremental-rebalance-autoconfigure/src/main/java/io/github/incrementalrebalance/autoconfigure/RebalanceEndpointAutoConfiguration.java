package io.github.incrementalrebalance.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code rebalance} actuator endpoint and its web extension.
 */
@AutoConfiguration(after = IncrementalRebalanceAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnAvailableEndpoint(RebalanceEndpoint.class)
public final class RebalanceEndpointAutoConfiguration {

	@Bean
	@ConditionalOnBean(MemberRuntimes.class)
	@ConditionalOnMissingBean
	RebalanceEndpoint rebalanceEndpoint(MemberRuntimes runtimes, ObjectProvider<EndpointAccessResolver> access) {
		Access granted = access.getIfAvailable(() -> (id, defaultAccess) -> defaultAccess)
			.accessFor(EndpointId.of("rebalance"), Access.READ_ONLY);
		return new RebalanceEndpoint(runtimes, granted == Access.UNRESTRICTED);
	}

	@Bean
	@ConditionalOnBean(RebalanceEndpoint.class)
	@ConditionalOnMissingBean
	@ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
	RebalanceEndpointWebExtension rebalanceEndpointWebExtension(RebalanceEndpoint endpoint) {
		return new RebalanceEndpointWebExtension(endpoint);
	}

}
