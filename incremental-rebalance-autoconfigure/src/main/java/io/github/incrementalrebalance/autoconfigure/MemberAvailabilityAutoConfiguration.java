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
 * The application's availability as its members see it ({@link MemberAvailability}): readiness that means warm
 * ({@code incremental-rebalance.readiness.warm=true}), so that a rollout (a Deployment's {@code maxSurge}) stops an old
 * pod only once the new one is warm, and readiness (or liveness) that says when a member's Kafka Streams failed.
 * Replaces Boot's {@link ApplicationAvailability}, which it extends and which it is while neither applies. An
 * application that defines its own availability keeps it, and a WARN at start says what it gives up.
 */
@AutoConfiguration(before = ApplicationAvailabilityAutoConfiguration.class)
@ConditionalOnClass({ KafkaStreams.class, StreamsBuilderFactoryBean.class })
@EnableConfigurationProperties(IncrementalRebalanceProperties.class)
public final class MemberAvailabilityAutoConfiguration {

	private static final Logger logger = LoggerFactory.getLogger(MemberAvailabilityAutoConfiguration.class);

	/** How long after its Kafka Streams started a member counts as warm anyway when the setting is absent. */
	static final Duration DEFAULT_BOUND = Duration.ofMinutes(10);

	@Bean
	@ConditionalOnMissingBean(ApplicationAvailability.class)
	MemberAvailability applicationAvailability(ObjectProvider<MemberRuntimes> runtimes,
			IncrementalRebalanceProperties properties) {
		Duration timeout = properties.readiness().timeout();
		Duration bound = (timeout != null) ? timeout : DEFAULT_BOUND;
		return new MemberAvailability(() -> properties, () -> runtimes.getIfAvailable(MemberRuntimes::new).all(),
				new WarmReadiness(() -> runtimes.getIfAvailable(MemberRuntimes::new).all(), bound, Clock.systemUTC()));
	}

	@Bean
	static SmartInitializingSingleton memberAvailabilityReplacedWarning(ListableBeanFactory beans,
			ObjectProvider<IncrementalRebalanceProperties> properties) {
		return () -> {
			Map<String, ApplicationAvailability> availabilities = beans.getBeansOfType(ApplicationAvailability.class);
			if (availabilities.values().stream().noneMatch(MemberAvailability.class::isInstance)) {
				IncrementalRebalanceProperties settings = properties.getObject();
				if (settings.readiness().warm()) {
					logger.warn("incremental-rebalance.readiness.warm=true, but the application defines its own "
							+ "ApplicationAvailability ({}): readiness means started, not warm. Remove that bean to "
							+ "have warm readiness", availabilities.keySet());
				}
				else {
					logger.info("The application defines its own ApplicationAvailability ({}): readiness does not "
							+ "say when a member's Kafka Streams failed (incremental-rebalance.health.streams-error)",
							availabilities.keySet());
				}
			}
		};
	}

}
