package io.github.incrementalrebalance.autoconfigure;

import java.util.Map;
import java.util.Properties;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.member.MemberClientSupplier;
import io.github.incrementalrebalance.member.MemberRuntime;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.processor.internals.DefaultKafkaClientSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.kafka.annotation.KafkaStreamsDefaultConfiguration;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;

/**
 * Wires a {@link MemberRuntime} into every {@link StreamsBuilderFactoryBean} of the context; each is its own group,
 * with its own control topic, identity tags and reader. A bean post-processor, because the
 * {@code StreamsBuilderFactoryBeanConfigurer}s reach only the factory bean of {@code @EnableKafkaStreams}; it also
 * runs after them, so what the application set is wrapped rather than replaced:
 * <ul>
 * <li>the client supplier set on the factory bean, else the application's {@link KafkaClientSupplier} bean, still
 * makes every client;</li>
 * <li>the factory bean's {@code KafkaStreamsCustomizer} still runs, first (see {@link MemberStreamsCustomizer}).</li>
 * </ul>
 * A factory bean whose client supplier already is a {@link MemberClientSupplier} was wired by the application with
 * the core API and is left as it is.
 */
class MemberRuntimeWiring implements BeanPostProcessor {

	private static final Logger logger = LoggerFactory.getLogger(MemberRuntimeWiring.class);

	private final ObjectProvider<IncrementalRebalanceProperties> settings;

	private final ObjectProvider<KafkaClientSupplier> applicationSupplier;

	private final ObjectProvider<MemberRuntimes> runtimes;

	private final ObjectProvider<MemberRuntimeCustomizer> customizers;

	MemberRuntimeWiring(ObjectProvider<IncrementalRebalanceProperties> settings,
			ObjectProvider<KafkaClientSupplier> applicationSupplier, ObjectProvider<MemberRuntimes> runtimes,
			ObjectProvider<MemberRuntimeCustomizer> customizers) {
		this.settings = settings;
		this.applicationSupplier = applicationSupplier;
		this.runtimes = runtimes;
		this.customizers = customizers;
	}

	@Override
	public Object postProcessBeforeInitialization(Object bean, String beanName) {
		if (bean instanceof StreamsBuilderFactoryBean factoryBean) {
			wire(factoryBean, beanName);
		}
		return bean;
	}

	private void wire(StreamsBuilderFactoryBean factoryBean, String beanName) {
		@Nullable KafkaClientSupplier setSupplier = FactoryBeanSlots.clientSupplier(factoryBean).orElse(null);
		if (setSupplier instanceof MemberClientSupplier) {
			logger.info("Kafka Streams of '{}' already run a member runtime of the application's own", beanName);
			return;
		}
		Properties properties = factoryBean.getStreamsConfiguration();
		if (properties == null) {
			return;
		}
		applySettings(properties, beanName);
		MemberRuntime runtime = MemberRuntime.create(properties);
		factoryBean.setStreamsConfiguration(runtime.configure(properties));
		factoryBean.setClientSupplier(runtime.clientSupplier(applicationSupplier(setSupplier)));
		factoryBean.setKafkaStreamsCustomizer(new MemberStreamsCustomizer(runtime, factoryBean,
				FactoryBeanSlots.kafkaStreamsCustomizer(factoryBean).orElse(null)));
		factoryBean.addListener(new StreamsBuilderFactoryBean.Listener() {

			@Override
			public void streamsRemoved(String id, KafkaStreams streams) {
				runtime.stop();
			}

		});
		this.customizers.orderedStream().forEach((customizer) -> customizer.customize(runtime));
		this.runtimes.getObject().register(beanName, runtime);
	}

	/**
	 * The properties configure the Kafka Streams of {@code @EnableKafkaStreams}, built from
	 * {@code spring.kafka.streams.*}: there they win over the Kafka-style keys. A factory bean the application declared
	 * has a config of its own, whose keys win; and it is another group, which must not share the control topic.
	 */
	private void applySettings(Properties properties, String beanName) {
		Map<String, Object> keys = this.settings.getObject().kafkaStyleKeys();
		if (KafkaStreamsDefaultConfiguration.DEFAULT_STREAMS_BUILDER_BEAN_NAME.equals(beanName)) {
			properties.putAll(keys);
			return;
		}
		keys.remove(LearnerConfig.CONTROL_TOPIC_CONFIG);
		keys.forEach(properties::putIfAbsent);
	}

	/**
	 * A supplier set on the factory bean is meant for it; Kafka's default there only means none was set.
	 */
	private KafkaClientSupplier applicationSupplier(@Nullable KafkaClientSupplier setSupplier) {
		if (setSupplier != null && setSupplier.getClass() != DefaultKafkaClientSupplier.class) {
			return setSupplier;
		}
		return this.applicationSupplier.getIfUnique(DefaultKafkaClientSupplier::new);
	}

}
