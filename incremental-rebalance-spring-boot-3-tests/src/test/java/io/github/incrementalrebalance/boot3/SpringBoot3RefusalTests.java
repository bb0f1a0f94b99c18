package io.github.incrementalrebalance.boot3;

import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.KStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.annotation.EnableKafkaStreams;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * A Spring Boot 3.5 application with the starter on its class path, as Maven resolves it under Boot 3.5's parent,
 * does not start: it says which Spring Boot the starter needs, before anything connects to Kafka.
 */
@ExtendWith(OutputCaptureExtension.class)
class SpringBoot3RefusalTests {

	@Test
	void startOnSpringBoot3IsRefusedNamingTheSpringBootItNeeds(CapturedOutput output) {
		assertThat(SpringBootVersion.getVersion()).startsWith("3.5.");

		assertThatException().isThrownBy(() -> new SpringApplicationBuilder(OrdersApplication.class)
			.web(WebApplicationType.NONE)
			.properties("spring.kafka.streams.application-id=orders", "spring.kafka.bootstrap-servers=localhost:1")
			.run())
			.withMessage("incremental-rebalance-starter needs Spring Boot 4.0, 4.1 or 4.2; this application runs Spring "
					+ "Boot " + SpringBootVersion.getVersion());
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Upgrade the application to Spring Boot 4.0, 4.1 or 4.2, or remove incremental-rebalance-starter");
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@EnableKafkaStreams
	static class OrdersApplication {

		@Bean
		KStream<String, String> orders(StreamsBuilder builder) {
			return builder.stream("orders");
		}

	}

}
