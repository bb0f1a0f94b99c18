package io.github.incrementalrebalance.autoconfigure;

import java.time.Clock;
import java.time.Duration;

import org.apache.kafka.streams.KafkaStreams;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;

/**
 * Readiness that means warm ({@code incremental-rebalance.warm-readiness=true}): the application's availability
 * reports it refusing traffic until every member start of this instance holds its share with its state, so that a
 * rollout (a Deployment's {@code maxSurge}) stops an old pod only once the new one is warm. Replaces Boot's
 * {@link ApplicationAvailability}, which it extends; an application that defines its own keeps it, and readiness then
 * means started.
 */
@AutoConfiguration(before = ApplicationAvailabilityAutoConfiguration.class)
@ConditionalOnClass({ KafkaStreams.class, StreamsBuilderFactoryBean.class })
@ConditionalOnBooleanProperty("incremental-rebalance.warm-readiness")
public final class WarmReadinessAutoConfiguration {

	/** How long after its start a member counts as warm anyway when the setting is absent. */
	static final Duration DEFAULT_BOUND = Duration.ofMinutes(10);

	@Bean
	WarmReadinessAvailability applicationAvailability(ObjectProvider<MemberRuntimes> runtimes, Environment environment) {
		Duration bound = Binder.get(environment)
			.bind("incremental-rebalance.warm-readiness-timeout", Duration.class)
			.orElse(DEFAULT_BOUND);
		return new WarmReadinessAvailability(new WarmReadiness(
				() -> runtimes.getIfAvailable(MemberRuntimes::new).all(), bound, Clock.systemUTC()));
	}

}
