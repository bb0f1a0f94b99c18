package io.github.incrementalrebalance.autoconfigure;

import java.time.Duration;
import java.util.Optional;

import io.github.incrementalrebalance.member.MemberRuntime;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.KafkaStreams;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.LifecycleProcessor;
import org.springframework.context.support.AbstractApplicationContext;
import org.springframework.kafka.config.KafkaStreamsCustomizer;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;

/**
 * Auto-configuration of incremental-rebalance for the application's Kafka Streams: every
 * {@link StreamsBuilderFactoryBean} gets a {@link MemberRuntime} (the learner assignor, the member's identity tags
 * and control topic, main consumers that can be asked to rebalance and that leave the group when they close),
 * configured by {@link IncrementalRebalanceProperties}. A leaving instance refuses traffic; once it drained, the
 * application context closes ({@code incremental-rebalance.drain.on-drained=shutdown}, the default).
 * <p>
 * Not conditional on a factory bean: Spring Cloud Stream's Kafka Streams binder registers one per function after
 * auto-configuration's conditions ran. A context that has none once refreshed is told so at WARN. Nor on its switches
 * ({@code enabled}, {@code drain.on-shutdown}, {@code drain.on-drained}): each is read when it acts, so that an
 * application processed ahead of time (Spring AOT, whose conditions are decided at build time) honours the values it
 * runs with.
 */
@AutoConfiguration(afterName = "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration")
@ConditionalOnClass({ KafkaStreams.class, StreamsBuilderFactoryBean.class })
@EnableConfigurationProperties(IncrementalRebalanceProperties.class)
public final class IncrementalRebalanceAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	MemberRuntimes memberRuntimes() {
		return new MemberRuntimes();
	}

	/**
	 * Wires a member runtime into every factory bean; static, as a bean post-processor must be, and with lazy
	 * dependencies, so that nothing it needs is created before the post-processors are in place.
	 * @param settings the properties
	 * @param applicationSupplier the application's client supplier, if any
	 * @param applicationCustomizers the application's Kafka Streams customizers
	 * @param runtimes where the runtimes are kept
	 * @param customizers what acts on each runtime
	 * @return the wiring
	 */
	@Bean
	@ConditionalOnMissingBean
	static MemberRuntimeWiring memberRuntimeWiring(ObjectProvider<IncrementalRebalanceProperties> settings,
			ObjectProvider<KafkaClientSupplier> applicationSupplier,
			ObjectProvider<KafkaStreamsCustomizer> applicationCustomizers, ObjectProvider<MemberRuntimes> runtimes,
			ObjectProvider<MemberRuntimeCustomizer> customizers) {
		return new MemberRuntimeWiring(settings, applicationSupplier, applicationCustomizers, runtimes, customizers);
	}

	@Bean
	UnknownKeysCheck incrementalRebalanceUnknownKeysCheck(ConfigurableApplicationContext context,
			IncrementalRebalanceProperties properties) {
		return new UnknownKeysCheck(context.getEnvironment(), properties.failOnUnknownKeys());
	}

	@Bean
	NothingWiredWarning incrementalRebalanceNothingWiredWarning(ConfigurableApplicationContext context,
			MemberRuntimes runtimes, ObjectProvider<IncrementalRebalanceProperties> properties) {
		return new NothingWiredWarning(context, runtimes, properties::getObject);
	}

	@Bean
	@ConditionalOnMissingBean
	LeavingReadiness leavingReadiness(ConfigurableApplicationContext context, MemberRuntimes runtimes) {
		return new LeavingReadiness(context, runtimes);
	}

	@Bean
	@ConditionalOnMissingBean
	ShutdownAfterDrain shutdownAfterDrain(ConfigurableApplicationContext context, MemberRuntimes runtimes,
			ObjectProvider<IncrementalRebalanceProperties> properties) {
		return new ShutdownAfterDrain(context, runtimes, properties::getObject);
	}

	@Bean
	DrainOnShutdown incrementalRebalanceDrainOnShutdown(MemberRuntimes runtimes,
			ObjectProvider<IncrementalRebalanceProperties> properties, ConfigurableApplicationContext context) {
		Duration otherPhases = Binder.get(context.getEnvironment())
			.bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
			.orElse(Duration.ofSeconds(30));
		return new DrainOnShutdown(runtimes, properties::getObject, () -> lifecycleProcessor(context), otherPhases);
	}

	private static Optional<LifecycleProcessor> lifecycleProcessor(ConfigurableApplicationContext context) {
		String name = AbstractApplicationContext.LIFECYCLE_PROCESSOR_BEAN_NAME;
		ConfigurableListableBeanFactory beans = context.getBeanFactory();
		return beans.containsSingleton(name) ? Optional.of(beans.getBean(name, LifecycleProcessor.class))
				: Optional.empty();
	}

}
