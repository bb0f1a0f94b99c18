package io.github.incrementalrebalance.autoconfigure;

import java.util.Properties;

import io.github.incrementalrebalance.member.MemberRuntime;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.config.KafkaStreamsCustomizer;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;

/**
 * The customizer of a factory bean wired by incremental-rebalance. The factory bean has one customizer slot, so the
 * one the application had set keeps its place inside this one: it still builds the {@code KafkaStreams} if it does
 * that, and customizes it first. Then the member runtime attaches and reads its control topic, before Kafka Streams
 * starts and joins the group.
 */
final class MemberStreamsCustomizer implements KafkaStreamsCustomizer {

	private final MemberRuntime runtime;

	private final StreamsBuilderFactoryBean factoryBean;

	private final @Nullable KafkaStreamsCustomizer applicationCustomizer;

	MemberStreamsCustomizer(MemberRuntime runtime, StreamsBuilderFactoryBean factoryBean,
			@Nullable KafkaStreamsCustomizer applicationCustomizer) {
		this.runtime = runtime;
		this.factoryBean = factoryBean;
		this.applicationCustomizer = applicationCustomizer;
	}

	@Override
	public KafkaStreams initKafkaStreams(Topology topology, Properties properties,
			KafkaClientSupplier clientSupplier) {
		return (this.applicationCustomizer != null)
				? this.applicationCustomizer.initKafkaStreams(topology, properties, clientSupplier)
				: KafkaStreamsCustomizer.super.initKafkaStreams(topology, properties, clientSupplier);
	}

	@Override
	public void customize(KafkaStreams kafkaStreams) {
		if (this.applicationCustomizer != null) {
			this.applicationCustomizer.customize(kafkaStreams);
		}
		this.runtime.attach(kafkaStreams, this.factoryBean.getTopology().describe()).start();
	}

}
