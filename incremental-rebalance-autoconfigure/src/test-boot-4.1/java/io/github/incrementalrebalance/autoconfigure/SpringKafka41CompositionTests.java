package io.github.incrementalrebalance.autoconfigure;

import io.github.incrementalrebalance.autoconfigure.IncrementalRebalanceAutoConfigurationTests.StreamsConfiguration;
import io.github.incrementalrebalance.autoconfigure.IncrementalRebalanceAutoConfigurationTests.TopologyConfiguration;
import io.github.incrementalrebalance.member.MemberRuntime;
import org.apache.kafka.streams.GroupProtocol;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;
import org.springframework.kafka.config.StreamsBuilderFactoryBeanConfigurer;

import static io.github.incrementalrebalance.autoconfigure.IncrementalRebalanceAutoConfigurationTests.factoryBean;
import static io.github.incrementalrebalance.autoconfigure.IncrementalRebalanceAutoConfigurationTests.runnableConfig;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What spring-kafka 4.1 adds that touches the starter (compiled and run on the boot-4.1 stack only).
 */
class SpringKafka41CompositionTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(KafkaAutoConfiguration.class, IncrementalRebalanceAutoConfiguration.class))
		.withUserConfiguration(StreamsConfiguration.class, TopologyConfiguration.class)
		.withPropertyValues("spring.kafka.streams.application-id=app", "spring.kafka.streams.auto-startup=false");

	@Test
	void streamsProtocolSetWithSetGroupProtocolIsTheOneTheStartRunsUnder() {
		this.contextRunner.withUserConfiguration(StreamsProtocolConfiguration.class).run((context) -> {
			StreamsBuilderFactoryBean factoryBean = factoryBean(context, "defaultKafkaStreamsBuilder");
			assertThat(factoryBean.getStreamsConfiguration()).as("written only when the factory bean starts")
				.doesNotContainKey("group.protocol");
			MemberRuntime runtime = context.getBean(MemberRuntimes.class).all().get(0);
			assertThat(runtime.groupProtocol()).isEqualTo(GroupProtocol.CLASSIC);
			factoryBean.setStreamsConfiguration(runnableConfig(factoryBean));
			factoryBean.start();
			try {
				assertThat(runtime.groupProtocol()).as("read from the config the factory bean built Kafka Streams with")
					.isEqualTo(GroupProtocol.STREAMS);
			}
			finally {
				factoryBean.stop();
			}
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class StreamsProtocolConfiguration {

		@Bean
		StreamsBuilderFactoryBeanConfigurer streamsProtocol() {
			return (factoryBean) -> factoryBean.setGroupProtocol(GroupProtocol.STREAMS);
		}

	}

}
