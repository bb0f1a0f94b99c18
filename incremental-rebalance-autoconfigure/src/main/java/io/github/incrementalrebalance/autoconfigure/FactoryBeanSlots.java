package io.github.incrementalrebalance.autoconfigure;

import java.lang.reflect.Field;
import java.util.Optional;

import org.apache.kafka.streams.KafkaClientSupplier;

import org.springframework.kafka.config.KafkaStreamsCustomizer;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;
import org.springframework.util.ReflectionUtils;

/**
 * What a {@link StreamsBuilderFactoryBean} holds in the single-slot setters incremental-rebalance composes with. The
 * factory bean has no getters for them, so its fields are read; empty when a spring-kafka version renamed them.
 */
final class FactoryBeanSlots {

	private static final Optional<Field> CLIENT_SUPPLIER = field("clientSupplier");

	private static final Optional<Field> KAFKA_STREAMS_CUSTOMIZER = field("kafkaStreamsCustomizer");

	private FactoryBeanSlots() {
	}

	static Optional<KafkaClientSupplier> clientSupplier(StreamsBuilderFactoryBean factoryBean) {
		return CLIENT_SUPPLIER.map((field) -> (KafkaClientSupplier) ReflectionUtils.getField(field, factoryBean));
	}

	static Optional<KafkaStreamsCustomizer> kafkaStreamsCustomizer(StreamsBuilderFactoryBean factoryBean) {
		return KAFKA_STREAMS_CUSTOMIZER
			.map((field) -> (KafkaStreamsCustomizer) ReflectionUtils.getField(field, factoryBean));
	}

	private static Optional<Field> field(String name) {
		Field field = ReflectionUtils.findField(StreamsBuilderFactoryBean.class, name);
		if (field != null) {
			ReflectionUtils.makeAccessible(field);
		}
		return Optional.ofNullable(field);
	}

}
