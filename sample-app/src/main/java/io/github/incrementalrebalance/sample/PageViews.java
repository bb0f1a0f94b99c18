package io.github.incrementalrebalance.sample;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.Stores;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.config.TopicBuilder;

/**
 * The topology: page views keyed by user, counted per user in a persistent store (six stateful tasks).
 */
@Configuration(proxyBeanMethods = false)
class PageViews {

	static final String INPUT = "page-views";

	static final String OUTPUT = "page-view-counts";

	static final int PARTITIONS = 6;

	@Bean
	NewTopic pageViewsTopic() {
		return TopicBuilder.name(INPUT).partitions(PARTITIONS).replicas(1).build();
	}

	@Bean
	NewTopic pageViewCountsTopic() {
		return TopicBuilder.name(OUTPUT).partitions(PARTITIONS).replicas(1).build();
	}

	@Bean
	KStream<String, String> pageViewCounts(StreamsBuilder builder) {
		KStream<String, String> views = builder.stream(INPUT, Consumed.with(Serdes.String(), Serdes.String()));
		views.groupByKey()
			.count(Materialized.<String, Long>as(Stores.persistentKeyValueStore("views-per-user"))
				.withKeySerde(Serdes.String())
				.withValueSerde(Serdes.Long()))
			.toStream()
			.to(OUTPUT, Produced.with(Serdes.String(), Serdes.Long()));
		return views;
	}

}
