package io.github.incrementalrebalance.autoconfigure;

import java.util.Optional;
import java.util.Properties;

import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.processor.internals.DefaultKafkaClientSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.annotation.KafkaStreamsDefaultConfiguration;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;
import org.springframework.kafka.config.StreamsBuilderFactoryBeanConfigurer;

/**
 * Auto-configuration of incremental-rebalance for the application's Kafka Streams: each gets a
 * {@link MemberRuntime} (the learner assignor, the member's identity tags and control topic, main consumers that
 * can be asked to rebalance and that leave the group when they close), configured by
 * {@link IncrementalRebalanceProperties}. When the member drained after a leave, the application context closes
 * ({@code incremental-rebalance.on-drained=shutdown}, the default).
 */
@AutoConfiguration(afterName = "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration")
@ConditionalOnClass({ KafkaStreams.class, StreamsBuilderFactoryBean.class })
@ConditionalOnBean(name = KafkaStreamsDefaultConfiguration.DEFAULT_STREAMS_BUILDER_BEAN_NAME)
@ConditionalOnBooleanProperty(name = "incremental-rebalance.enabled", matchIfMissing = true)
@EnableConfigurationProperties(IncrementalRebalanceProperties.class)
public final class IncrementalRebalanceAutoConfiguration {

	private static final Logger logger = LoggerFactory.getLogger(IncrementalRebalanceAutoConfiguration.class);

	@Bean
	@ConditionalOnMissingBean
	MemberRuntimes memberRuntimes() {
		return new MemberRuntimes();
	}

	/**
	 * Gives the Kafka Streams of the factory bean a member runtime, whose client supplier wraps the application's
	 * {@link KafkaClientSupplier} bean when it has one.
	 * @param applicationSupplier the application's supplier, if any
	 * @param runtimes where the runtime is kept
	 * @param context the context to close once the member drained
	 * @return the configurer
	 */
	@Bean
	@ConditionalOnMissingBean(name = "memberRuntimeConfigurer")
	StreamsBuilderFactoryBeanConfigurer memberRuntimeConfigurer(ObjectProvider<KafkaClientSupplier> applicationSupplier,
			MemberRuntimes runtimes, IncrementalRebalanceProperties settings, ConfigurableApplicationContext context) {
		return (factoryBean) -> {
			Properties properties = factoryBean.getStreamsConfiguration();
			properties.putAll(settings.kafkaStyleKeys());
			MemberRuntime runtime = MemberRuntime.create(properties);
			factoryBean.setStreamsConfiguration(runtime.configure(properties));
			factoryBean.setClientSupplier(
					runtime.clientSupplier(applicationSupplier.getIfUnique(DefaultKafkaClientSupplier::new)));
			factoryBean.setKafkaStreamsCustomizer(
					(streams) -> runtime.attach(streams, factoryBean.getTopology().describe()).start());
			runtime.addStateListener((state) -> publishReadiness(context, state));
			if (settings.onDrained() == IncrementalRebalanceProperties.OnDrained.SHUTDOWN) {
				runtime.onClosed((state) -> closeAfterDrain(context, state));
			}
			runtimes.register(runtime);
		};
	}

	@Bean
	OverriddenWiringCheck incrementalRebalanceOverriddenWiringCheck(ListableBeanFactory beanFactory,
			MemberRuntimes runtimes) {
		return new OverriddenWiringCheck(beanFactory, runtimes);
	}

	@Bean
	@ConditionalOnBooleanProperty("incremental-rebalance.drain-on-shutdown")
	DrainOnShutdown incrementalRebalanceDrainOnShutdown(MemberRuntimes runtimes,
			IncrementalRebalanceProperties settings) {
		return new DrainOnShutdown(runtimes, Optional.ofNullable(settings.scaleDownTimeout()));
	}

	/**
	 * A leaving instance refuses traffic (Kubernetes takes it out of its Service); a cancelled leave accepts again.
	 */
	private static void publishReadiness(ConfigurableApplicationContext context, MemberState state) {
		if (state == MemberState.LEAVING) {
			AvailabilityChangeEvent.publish(context, ReadinessState.REFUSING_TRAFFIC);
		}
		else if (state == MemberState.STABLE) {
			AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
		}
	}

	/**
	 * Like Boot's shutdown endpoint: close on another thread, the draining one must not wait for itself.
	 */
	private static void closeAfterDrain(ConfigurableApplicationContext context, MemberState state) {
		logger.info("Kafka Streams left the group ({}): closing the application", state);
		Thread closer = new Thread(context::close, "incremental-rebalance-shutdown");
		closer.setContextClassLoader(IncrementalRebalanceAutoConfiguration.class.getClassLoader());
		closer.start();
	}

}
