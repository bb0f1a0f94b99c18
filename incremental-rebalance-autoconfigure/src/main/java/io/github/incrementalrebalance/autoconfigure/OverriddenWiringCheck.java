package io.github.incrementalrebalance.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.github.incrementalrebalance.member.MemberClientSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;

/**
 * Once every singleton exists, checks that each wired {@link StreamsBuilderFactoryBean} still has the client
 * supplier and the customizer incremental-rebalance set: code that calls {@code setClientSupplier} or
 * {@code setKafkaStreamsCustomizer} after the wiring (a later bean post-processor, an init method) would switch
 * leaves and learners off without a word.
 */
class OverriddenWiringCheck implements SmartInitializingSingleton {

	private static final Logger logger = LoggerFactory.getLogger(OverriddenWiringCheck.class);

	private final BeanFactory beanFactory;

	private final MemberRuntimes runtimes;

	OverriddenWiringCheck(BeanFactory beanFactory, MemberRuntimes runtimes) {
		this.beanFactory = beanFactory;
		this.runtimes = runtimes;
	}

	@Override
	public void afterSingletonsInstantiated() {
		this.runtimes.byFactoryBean().keySet().forEach((name) -> {
			StreamsBuilderFactoryBean factoryBean = this.beanFactory.getBean(BeanFactory.FACTORY_BEAN_PREFIX + name,
					StreamsBuilderFactoryBean.class);
			List<String> replaced = new ArrayList<>();
			replacedBy(FactoryBeanSlots.clientSupplier(factoryBean), MemberClientSupplier.class)
				.ifPresent((by) -> replaced.add("client supplier (now " + by + ")"));
			replacedBy(FactoryBeanSlots.kafkaStreamsCustomizer(factoryBean), MemberStreamsCustomizer.class)
				.ifPresent((by) -> replaced.add("KafkaStreamsCustomizer (now " + by + ")"));
			if (!replaced.isEmpty()) {
				logger.warn("The Kafka Streams of '{}' lost incremental-rebalance's {}: it was set again after the "
						+ "starter wired the factory bean, so closing instances will not leave their group and no "
						+ "learner moves a task. Set it in a StreamsBuilderFactoryBeanConfigurer or declare a "
						+ "KafkaClientSupplier bean instead: incremental-rebalance wraps what it finds there.", name,
						String.join(" and ", replaced));
			}
		});
	}

	private static Optional<String> replacedBy(Optional<?> slot, Class<?> wired) {
		return slot.filter((value) -> !wired.isInstance(value)).map((value) -> value.getClass().getName());
	}

}
