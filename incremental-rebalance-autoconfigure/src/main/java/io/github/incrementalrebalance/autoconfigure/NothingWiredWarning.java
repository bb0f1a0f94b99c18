package io.github.incrementalrebalance.autoconfigure;

import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;

/**
 * Says at WARN when the starter found no Kafka Streams to wire: the application counts on warm hand-overs that will
 * not happen, and nothing else in it would say so.
 */
class NothingWiredWarning implements ApplicationListener<ContextRefreshedEvent> {

	private static final Logger logger = LoggerFactory.getLogger(NothingWiredWarning.class);

	private final ApplicationContext context;

	private final MemberRuntimes runtimes;

	private final Supplier<IncrementalRebalanceProperties> properties;

	NothingWiredWarning(ApplicationContext context, MemberRuntimes runtimes,
			Supplier<IncrementalRebalanceProperties> properties) {
		this.context = context;
		this.runtimes = runtimes;
		this.properties = properties;
	}

	@Override
	public void onApplicationEvent(ContextRefreshedEvent event) {
		if (event.getApplicationContext() != this.context || !this.runtimes.all().isEmpty()) {
			return;
		}
		if (!this.properties.get().enabled()) {
			logger.info("incremental-rebalance.enabled=false: no Kafka Streams of this application are wired, so none "
					+ "leaves through learners and a shutdown closes them as Kafka Streams do");
		}
		else {
			logger.warn("incremental-rebalance wired no Kafka Streams: the application context has no "
					+ "StreamsBuilderFactoryBean (from @EnableKafkaStreams, a factory bean of the application's own "
					+ "or Spring Cloud Stream's Kafka Streams binder), so no member leaves through learners. Kafka "
					+ "Streams built with new KafkaStreams(...) are wired with the core API (MemberRuntime.create); "
					+ "set incremental-rebalance.enabled=false where the starter is not wanted");
		}
	}

}
