package io.github.incrementalrebalance.sample;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.kafka.annotation.EnableKafkaStreams;

/**
 * Counts page views per user with Kafka Streams. Started without {@code spring.kafka.bootstrap-servers}, it runs
 * its own in-process Kafka broker so the demo needs nothing installed.
 */
@SpringBootApplication
@EnableKafkaStreams
public class SampleApplication {

	public static void main(String[] args) {
		new SpringApplicationBuilder(SampleApplication.class).initializers(new DemoBroker()).run(args);
	}

}
