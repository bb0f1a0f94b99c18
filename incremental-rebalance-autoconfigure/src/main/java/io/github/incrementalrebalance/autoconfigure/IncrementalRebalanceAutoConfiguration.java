package io.github.incrementalrebalance.autoconfigure;

import io.github.incrementalrebalance.member.MemberClientSupplier;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.processor.internals.DefaultKafkaClientSupplier;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.annotation.KafkaStreamsDefaultConfiguration;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;
import org.springframework.kafka.config.StreamsBuilderFactoryBeanConfigurer;

/**
 * Auto-configuration of the member side of incremental-rebalance: every main consumer of the application's Kafka
 * Streams can be asked to rebalance and leaves its group when it closes, instead of making the group wait
 * {@code session.timeout.ms}.
 */
@AutoConfiguration(afterName = "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration")
@ConditionalOnClass({ KafkaStreams.class, StreamsBuilderFactoryBean.class })
@ConditionalOnBean(name = KafkaStreamsDefaultConfiguration.DEFAULT_STREAMS_BUILDER_BEAN_NAME)
@ConditionalOnBooleanProperty(name = "incremental-rebalance.enabled", matchIfMissing = true)
public final class IncrementalRebalanceAutoConfiguration {

	/**
	 * Gives the Kafka Streams of the factory bean its own member supplier, made around the application's
	 * {@link KafkaClientSupplier} bean when it has one.
	 * @param applicationSupplier the application's supplier, if any
	 * @return the configurer
	 */
	@Bean
	@ConditionalOnMissingBean(name = "memberClientSupplierConfigurer")
	StreamsBuilderFactoryBeanConfigurer memberClientSupplierConfigurer(
			ObjectProvider<KafkaClientSupplier> applicationSupplier) {
		return (factoryBean) -> factoryBean.setClientSupplier(
				new MemberClientSupplier(applicationSupplier.getIfUnique(DefaultKafkaClientSupplier::new)));
	}

}
