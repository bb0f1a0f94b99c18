package io.github.incrementalrebalance.autoconfigure;

import java.util.List;
import java.util.Properties;
import java.util.function.Supplier;

import io.github.incrementalrebalance.member.MemberRuntime;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.config.KafkaStreamsCustomizer;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;

/**
 * The {@link KafkaStreamsCustomizer} of a factory bean wired by incremental-rebalance: where its {@code KafkaStreams}
 * is built, from the final Streams config and the factory bean's client supplier, which spring-kafka hands to this
 * method (so no internals of the factory bean are read):
 * <ul>
 * <li>the config is configured by the member runtime again, since spring-kafka may still change it in {@code start()}
 * (spring-kafka 4.1's {@code setGroupProtocol} decides how a drain waits): a start after an earlier one is a new
 * incarnation of the member, with its own client tags;</li>
 * <li>the client supplier set on the factory bean, else the application's {@link KafkaClientSupplier} bean, is
 * wrapped by the member's supplier and still makes every client;</li>
 * <li>the application's {@code KafkaStreamsCustomizer} beans run, in order: the first builds the
 * {@code KafkaStreams}, all customize it; then the member runtime attaches and reads its control topic, before Kafka
 * Streams starts and joins the group.</li>
 * </ul>
 * It is installed before the application's {@code StreamsBuilderFactoryBeanConfigurer}s run where it can be; while no
 * member runtime is bound to it (the application wired that factory bean itself), it does what spring-kafka does
 * without a customizer.
 */
final class MemberStreamsCustomizer implements KafkaStreamsCustomizer {

	private static final String KAFKA_PACKAGE = "org.apache.kafka.";

	private final StreamsBuilderFactoryBean factoryBean;

	private final Supplier<@Nullable KafkaClientSupplier> applicationSupplier;

	private final Supplier<List<KafkaStreamsCustomizer>> applicationCustomizers;

	private volatile @Nullable MemberRuntime runtime;

	MemberStreamsCustomizer(StreamsBuilderFactoryBean factoryBean,
			Supplier<@Nullable KafkaClientSupplier> applicationSupplier,
			Supplier<List<KafkaStreamsCustomizer>> applicationCustomizers) {
		this.factoryBean = factoryBean;
		this.applicationSupplier = applicationSupplier;
		this.applicationCustomizers = applicationCustomizers;
	}

	void bind(MemberRuntime runtime) {
		this.runtime = runtime;
	}

	@Override
	public KafkaStreams initKafkaStreams(Topology topology, Properties properties,
			KafkaClientSupplier clientSupplier) {
		MemberRuntime runtime = this.runtime;
		if (runtime == null) {
			return new KafkaStreams(topology, properties, clientSupplier);
		}
		// a start after an earlier one (a drain with stop-streams, a stop and start) is a new incarnation
		Properties configured = runtime.configure(properties);
		KafkaClientSupplier memberSupplier = runtime.clientSupplier(applicationSupplier(clientSupplier));
		List<KafkaStreamsCustomizer> customizers = this.applicationCustomizers.get();
		return customizers.isEmpty() ? new KafkaStreams(topology, configured, memberSupplier)
				: customizers.get(0).initKafkaStreams(topology, configured, memberSupplier);
	}

	/**
	 * A supplier set on the factory bean is meant for it; one of Kafka's own there only means none was set (the
	 * factory bean starts with Kafka's default, whose class is internal to Kafka Streams and may move, so it is
	 * recognised by where it comes from, not by its name).
	 */
	private KafkaClientSupplier applicationSupplier(KafkaClientSupplier setSupplier) {
		if (!setSupplier.getClass().getName().startsWith(KAFKA_PACKAGE)) {
			return setSupplier;
		}
		KafkaClientSupplier bean = this.applicationSupplier.get();
		return (bean != null) ? bean : setSupplier;
	}

	@Override
	public void customize(KafkaStreams kafkaStreams) {
		MemberRuntime runtime = this.runtime;
		if (runtime != null) {
			this.applicationCustomizers.get().forEach((customizer) -> customizer.customize(kafkaStreams));
			runtime.attach(kafkaStreams, this.factoryBean.getTopology().describe()).start();
		}
	}

}
