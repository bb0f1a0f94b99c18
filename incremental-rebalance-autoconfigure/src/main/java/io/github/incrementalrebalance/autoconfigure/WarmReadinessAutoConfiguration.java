package io.github.incrementalrebalance.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;

import org.apache.kafka.streams.KafkaStreams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;

/**
 * Readiness that means warm ({@code incremental-rebalance.readiness.warm=true}): the application's availability
 * reports it refusing traffic until every member start of this instance holds its share with its state, so that a
 * rollout (a Deployment's {@code maxSurge}) stops an old pod only once the new one is warm. Replaces Boot's
 * {@link ApplicationAvailability}, which it extends and which it is while the setting is off: the setting is read
 * when readiness is asked, not as a bean condition, so that an AOT-processed application honours the value it runs
 * with. An application that defines its own availability keeps it, readiness then means started, and a WARN at start
 * says so when the setting is on.
 */
@AutoConfiguration(before = ApplicationAvailabilityAutoConfiguration.class)
@ConditionalOnClass({ KafkaStreams.class, StreamsBuilderFactoryBean.class })
@EnableConfigurationProperties(IncrementalRebalanceProperties.class)
public final class WarmReadinessAutoConfiguration {

	private static final Logger logger = LoggerFactory.getLogger(WarmReadinessAutoConfiguration.class);

	/** How long after its start a member counts as warm anyway when the setting is absent. */
	static final Duration DEFAULT_BOUND = Duration.ofMinutes(10);

	@Bean
	@ConditionalOnMissingBean(ApplicationAvailability.class)
	WarmReadinessAvailability applicationAvailability(ObjectProvider<MemberRuntimes> runtimes,
			IncrementalRebalanceProperties properties) {
		Duration timeout = properties.readiness().timeout();
		Duration bound = (timeout != null) ? timeout : DEFAULT_BOUND;
		return new WarmReadinessAvailability(() -> properties.readiness().warm(), new WarmReadiness(
				() -> runtimes.getIfAvailable(MemberRuntimes::new).all(), bound, Clock.systemUTC()));
	}

	@Bean
	static SmartInitializingSingleton warmReadinessReplacedWarning(ListableBeanFactory beans,
			ObjectProvider<IncrementalRebalanceProperties> properties) {
		return () -> {
			Map<String, ApplicationAvailability> availabilities = beans.getBeansOfType(ApplicationAvailability.class);
			if (properties.getObject().readiness().warm()
					&& availabilities.values().stream().noneMatch(WarmReadinessAvailability.class::isInstance)) {
				logger.warn("incremental-rebalance.readiness.warm=true, but the application defines its own "
						+ "ApplicationAvailability ({}): readiness means started, not warm. Remove that bean to have "
						+ "warm readiness", availabilities.keySet());
			}
		};
	}

}
