package io.github.incrementalrebalance.autoconfigure;

import java.util.Map;
import java.util.Properties;

import io.github.incrementalrebalance.assignor.LearnerTaskAssignor;
import io.github.incrementalrebalance.member.MemberClientSupplier;
import io.github.incrementalrebalance.member.MemberIdentity;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.EnableKafkaStreams;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;
import org.springframework.test.util.ReflectionTestUtils;

import static org.assertj.core.api.Assertions.assertThat;

class IncrementalRebalanceAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(KafkaAutoConfiguration.class, IncrementalRebalanceAutoConfiguration.class))
		.withPropertyValues("spring.kafka.streams.application-id=app", "spring.kafka.streams.auto-startup=false");

	@Test
	void streamsGetTheMemberClientSupplier() {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
			.run((context) -> assertThat(clientSupplier(context)).isInstanceOf(MemberClientSupplier.class));
	}

	@Test
	void memberClientSupplierMakesClientsWithTheApplicationsSupplier() {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class, ApplicationSupplierConfiguration.class)
			.run((context) -> {
				KafkaClientSupplier supplier = clientSupplier(context);
				assertThat(supplier).isInstanceOf(MemberClientSupplier.class);
				assertThat(ReflectionTestUtils.getField(supplier, "delegate"))
					.isSameAs(context.getBean(KafkaClientSupplier.class));
			});
	}

	@Test
	void streamsRunTheLearnerAssignorAndNameTheMember() {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
			.withPropertyValues("spring.kafka.streams.properties.incremental.rebalance.instance.id=pod-7")
			.run((context) -> {
				Properties streams = context.getBean("&defaultKafkaStreamsBuilder", StreamsBuilderFactoryBean.class)
					.getStreamsConfiguration();
				assertThat(streams).containsEntry(StreamsConfig.TASK_ASSIGNOR_CLASS_CONFIG,
						LearnerTaskAssignor.class.getName());
				assertThat(streams).containsEntry(StreamsConfig.CLIENT_TAG_PREFIX + MemberIdentity.INSTANCE_TAG, "pod-7");
				assertThat(context.getBean(MemberRuntimes.class).all()).singleElement()
					.satisfies((runtime) -> assertThat(runtime.identity().instanceId()).isEqualTo("pod-7"));
			});
	}

	@Test
	void backsOffWhenDisabled() {
		this.contextRunner.withUserConfiguration(StreamsConfiguration.class)
			.withPropertyValues("incremental-rebalance.enabled=false")
			.run((context) -> {
				assertThat(context).doesNotHaveBean("memberRuntimeConfigurer");
				assertThat(clientSupplier(context)).isNotInstanceOf(MemberClientSupplier.class);
			});
	}

	@Test
	void backsOffWithoutKafkaStreamsEnabled() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean("memberRuntimeConfigurer"));
	}

	@Test
	void backsOffWithoutKafkaStreamsOnTheClasspath() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(KafkaStreams.class))
			.run((context) -> assertThat(context).doesNotHaveBean("memberRuntimeConfigurer"));
	}

	private static KafkaClientSupplier clientSupplier(AssertableApplicationContext context) {
		StreamsBuilderFactoryBean factoryBean = context.getBean("&defaultKafkaStreamsBuilder",
				StreamsBuilderFactoryBean.class);
		return (KafkaClientSupplier) ReflectionTestUtils.getField(factoryBean, "clientSupplier");
	}

	@Configuration(proxyBeanMethods = false)
	@EnableKafkaStreams
	static class StreamsConfiguration {

	}

	@Configuration(proxyBeanMethods = false)
	static class ApplicationSupplierConfiguration {

		@Bean
		KafkaClientSupplier applicationClientSupplier() {
			return new KafkaClientSupplier() {

				@Override
				public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
					throw new UnsupportedOperationException();
				}

				@Override
				public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
					throw new UnsupportedOperationException();
				}

				@Override
				public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
					throw new UnsupportedOperationException();
				}

				@Override
				public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
					throw new UnsupportedOperationException();
				}

			};
		}

	}

}
