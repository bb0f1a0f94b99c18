package io.github.incrementalrebalance.sample;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.kafka.config.StreamsBuilderFactoryBean;
import org.springframework.kafka.config.StreamsBuilderFactoryBeanConfigurer;
import org.springframework.stereotype.Component;

/**
 * Says how many records each active task restored before it could run: after a hand-over to a warm learner, next to
 * nothing; after a task moved cold, its whole changelog.
 */
@Component
class RestoreLog implements StreamsBuilderFactoryBeanConfigurer, StateRestoreListener {

	private static final Logger logger = LoggerFactory.getLogger(RestoreLog.class);

	@Override
	public void configure(StreamsBuilderFactoryBean factoryBean) {
		factoryBean.setStateRestoreListener(this);
	}

	@Override
	public void onRestoreStart(TopicPartition partition, String store, long startingOffset, long endingOffset) {
	}

	@Override
	public void onBatchRestored(TopicPartition partition, String store, long batchEndOffset, long restored) {
	}

	@Override
	public void onRestoreEnd(TopicPartition partition, String store, long totalRestored) {
		logger.info("Restored {} records of store {} partition {}", totalRestored, store, partition.partition());
	}

}
