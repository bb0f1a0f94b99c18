package io.github.incrementalrebalance.autoconfigure;

import java.lang.reflect.Field;
import java.util.Map;

import io.github.incrementalrebalance.member.MemberClientSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;
import org.springframework.util.ReflectionUtils;

/**
 * Once every configurer ran, checks that each {@link StreamsBuilderFactoryBean} still has the client supplier the
 * starter set: a configurer of the application that calls {@code setClientSupplier} after it switches leaves and
 * learners off without a word. The factory bean has no getter, so its field is read.
 */
class OverriddenWiringCheck implements SmartInitializingSingleton {

	private static final Logger logger = LoggerFactory.getLogger(OverriddenWiringCheck.class);

	private final ListableBeanFactory beanFactory;

	private final MemberRuntimes runtimes;

	OverriddenWiringCheck(ListableBeanFactory beanFactory, MemberRuntimes runtimes) {
		this.beanFactory = beanFactory;
		this.runtimes = runtimes;
	}

	@Override
	public void afterSingletonsInstantiated() {
		if (this.runtimes.all().isEmpty()) {
			return;
		}
		Field field = ReflectionUtils.findField(StreamsBuilderFactoryBean.class, "clientSupplier");
		if (field == null) {
			return;
		}
		ReflectionUtils.makeAccessible(field);
		Map<String, StreamsBuilderFactoryBean> factoryBeans = this.beanFactory
			.getBeansOfType(StreamsBuilderFactoryBean.class, false, false);
		factoryBeans.forEach((name, factoryBean) -> {
			Object supplier = ReflectionUtils.getField(field, factoryBean);
			if (!(supplier instanceof MemberClientSupplier)) {
				logger.warn("The Kafka Streams of '{}' do not use incremental-rebalance's client supplier (a "
						+ "StreamsBuilderFactoryBeanConfigurer replaced it with {}): closing instances will not leave "
						+ "their group and no learner moves a task. Declare your supplier as a KafkaClientSupplier bean "
						+ "instead; incremental-rebalance wraps it.", name.replaceFirst("^&", ""),
						(supplier != null) ? supplier.getClass().getName() : "none");
			}
		});
	}

}
