package io.github.incrementalrebalance.autoconfigure;

import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.config.StartRefusedException;
import io.github.incrementalrebalance.assignor.ControlView;
import io.github.incrementalrebalance.member.MemberRuntime;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.KafkaStreams;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.Ordered;
import org.springframework.kafka.annotation.KafkaStreamsDefaultConfiguration;
import org.springframework.kafka.config.KafkaStreamsCustomizer;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;
import org.springframework.kafka.config.StreamsBuilderFactoryBeanConfigurer;

/**
 * Wires a {@link MemberRuntime} into every {@link StreamsBuilderFactoryBean} of the context; each is its own group,
 * with its own control topic, identity tags and reader. Only public API of spring-kafka is used; the factory bean's
 * customizer slot is the one place of its own that is taken, and never silently:
 * <ul>
 * <li>As a {@link StreamsBuilderFactoryBeanConfigurer} of the highest precedence it installs its customizer in the
 * factory bean of {@code @EnableKafkaStreams} before the application's configurers run; as a bean post-processor it
 * binds the member runtime to it (the bean name, needed to pick the settings, is known only then) and installs the
 * customizer in factory beans the application declared.</li>
 * <li>The client supplier is not replaced: spring-kafka hands the factory bean's supplier to the customizer, which
 * wraps it there ({@link MemberStreamsCustomizer}).</li>
 * <li>A customizer set on the factory bean after this one (a configurer, a later post-processor) would switch leaves
 * and learners off: the factory bean's start then fails, naming the factory bean and the fix.</li>
 * </ul>
 * A factory bean whose Streams config already holds a member runtime's objects was wired by the application with the
 * core API and is left as it is.
 */
class MemberRuntimeWiring implements BeanPostProcessor, StreamsBuilderFactoryBeanConfigurer {

	private static final Logger logger = LoggerFactory.getLogger(MemberRuntimeWiring.class);

	private static final Duration CLOSE_UNWIRED = Duration.ofSeconds(10);

	private final ObjectProvider<IncrementalRebalanceProperties> settings;

	private final ObjectProvider<KafkaClientSupplier> applicationSupplier;

	private final ObjectProvider<KafkaStreamsCustomizer> applicationCustomizers;

	private final ObjectProvider<MemberRuntimes> runtimes;

	private final ObjectProvider<MemberRuntimeCustomizer> customizers;

	private final Map<StreamsBuilderFactoryBean, MemberStreamsCustomizer> installed = new IdentityHashMap<>();

	MemberRuntimeWiring(ObjectProvider<IncrementalRebalanceProperties> settings,
			ObjectProvider<KafkaClientSupplier> applicationSupplier,
			ObjectProvider<KafkaStreamsCustomizer> applicationCustomizers, ObjectProvider<MemberRuntimes> runtimes,
			ObjectProvider<MemberRuntimeCustomizer> customizers) {
		this.settings = settings;
		this.applicationSupplier = applicationSupplier;
		this.applicationCustomizers = applicationCustomizers;
		this.runtimes = runtimes;
		this.customizers = customizers;
	}

	@Override
	public void configure(StreamsBuilderFactoryBean factoryBean) {
		if (enabled()) {
			install(factoryBean);
		}
	}

	/**
	 * Read when a factory bean is wired, not as a bean condition, so that an AOT-processed application honours the value
	 * it runs with.
	 */
	private boolean enabled() {
		return this.settings.getObject().enabled();
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	@Override
	public Object postProcessBeforeInitialization(Object bean, String beanName) {
		if (bean instanceof StreamsBuilderFactoryBean factoryBean && enabled()) {
			wire(factoryBean, beanName);
		}
		return bean;
	}

	/**
	 * The customizer installed in a factory bean.
	 * @param factoryBean the factory bean
	 * @return the customizer, or null when none was installed
	 */
	synchronized @Nullable MemberStreamsCustomizer customizerOf(StreamsBuilderFactoryBean factoryBean) {
		return this.installed.get(factoryBean);
	}

	private synchronized MemberStreamsCustomizer install(StreamsBuilderFactoryBean factoryBean) {
		return this.installed.computeIfAbsent(factoryBean, (key) -> {
			MemberStreamsCustomizer customizer = new MemberStreamsCustomizer(key,
					() -> this.applicationSupplier.getIfUnique(), this::applicationCustomizers);
			key.setKafkaStreamsCustomizer(customizer);
			return customizer;
		});
	}

	private List<KafkaStreamsCustomizer> applicationCustomizers() {
		return this.applicationCustomizers.orderedStream().toList();
	}

	private void wire(StreamsBuilderFactoryBean factoryBean, String beanName) {
		Properties properties = factoryBean.getStreamsConfiguration();
		if (properties == null) {
			return;
		}
		if (properties.containsKey(ControlView.CONFIG)) {
			logger.info("Kafka Streams of '{}' already run a member runtime of the application's own", beanName);
			return;
		}
		applySettings(properties, beanName);
		MemberRuntime runtime = MemberRuntime.create(properties);
		factoryBean.setStreamsConfiguration(runtime.configure(properties));
		install(factoryBean).bind(runtime);
		// a drained member stops through the factory bean: it then reports stopped and its listeners hear of it
		runtime.stopStreamsWith(factoryBean::stop);
		factoryBean.addListener(new StreamsBuilderFactoryBean.Listener() {

			@Override
			public void streamsAdded(String id, KafkaStreams streams) {
				requireWired(beanName, runtime, streams);
			}

			@Override
			public void streamsRemoved(String id, KafkaStreams streams) {
				runtime.stop();
			}

		});
		this.customizers.orderedStream().forEach((customizer) -> customizer.customize(runtime));
		this.runtimes.getObject().register(beanName, runtime);
	}

	/**
	 * Kafka Streams built past the member's customizer have no member supplier: they would neither leave their group
	 * on close nor move tasks when learners get ready, while the rest of the group counts on them.
	 */
	private static void requireWired(String beanName, MemberRuntime runtime, KafkaStreams streams) {
		if (runtime.isAttachedTo(streams)) {
			return;
		}
		streams.close(CLOSE_UNWIRED);
		throw new IllegalStateException("The Kafka Streams of '" + beanName + "' were built by another "
				+ "KafkaStreamsCustomizer than incremental-rebalance's: setKafkaStreamsCustomizer was called on the "
				+ "factory bean after the starter wired it, so its members would neither leave their group on close "
				+ "nor hand tasks to learners. Declare your customizer as a KafkaStreamsCustomizer bean instead (the "
				+ "starter runs every such bean, in order, inside its own), or set incremental-rebalance.enabled=false");
	}

	/**
	 * The properties configure the Kafka Streams of {@code @EnableKafkaStreams}, built from
	 * {@code spring.kafka.streams.*}: there they win over the Kafka-style keys. A factory bean the application declared
	 * (a binder's function) has a config of its own, whose keys win; and it is another group, which must not share the
	 * control topic: {@code control-topic.name} is refused for one that does not name its own, rather than ignored.
	 */
	private void applySettings(Properties properties, String beanName) {
		Map<String, Object> keys = this.settings.getObject().kafkaStyleKeys();
		if (KafkaStreamsDefaultConfiguration.DEFAULT_STREAMS_BUILDER_BEAN_NAME.equals(beanName)) {
			properties.putAll(keys);
			return;
		}
		Object controlTopic = keys.remove(LearnerConfig.CONTROL_TOPIC_CONFIG);
		if (controlTopic != null && !properties.containsKey(LearnerConfig.CONTROL_TOPIC_CONFIG)) {
			throw new StartRefusedException("incremental-rebalance.control-topic.name", "incremental-rebalance."
					+ "control-topic.name=" + controlTopic + " names the control topic of the Kafka Streams of "
					+ "spring.kafka.streams, but the factory bean '" + beanName + "' runs a Kafka Streams application "
					+ "of its own (a group of its own, which must not share that topic) and names none",
					"the Kafka-style key " + LearnerConfig.CONTROL_TOPIC_CONFIG + " in that factory bean's own "
							+ "configuration (for Spring Cloud Stream's binder: spring.cloud.stream.kafka.streams.binder."
							+ "functions.<function>.configuration." + LearnerConfig.CONTROL_TOPIC_CONFIG + "), or no "
							+ "incremental-rebalance.control-topic.name, so that each application's control topic is "
							+ "<application.id>-rebalance-control");
		}
		keys.forEach(properties::putIfAbsent);
	}

}
