package io.github.incrementalrebalance.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.kafka.annotation.EnableKafkaStreams;

/**
 * Counts page views per user with Kafka Streams; the starter makes its scale-downs and deploys hand tasks to warm
 * learners. Point it at a broker with {@code spring.kafka.bootstrap-servers}; the demo (in the tests) brings its own.
 */
@SpringBootApplication
@EnableKafkaStreams
public class SampleApplication {

	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

}
