package io.github.incrementalrebalance.testkit;

import java.util.function.Supplier;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.StateRestoreListener;

/**
 * The restore listener of an application whose topology is built when its Kafka Streams is (a Spring factory bean):
 * its {@link RestoredRecords} are made at the first restore (told on the state updater threads) or the first read.
 */
public final class RestoreCounter implements StateRestoreListener {

	private final Supplier<Topology> topology;

	private RestoredRecords records;

	/**
	 * @param topology the application's topology, once built
	 */
	public RestoreCounter(Supplier<Topology> topology) {
		this.topology = topology;
	}

	/**
	 * The records restored so far.
	 * @return the counts
	 */
	public synchronized RestoredRecords records() {
		if (this.records == null) {
			this.records = RestoredRecords.of(this.topology.get());
		}
		return this.records;
	}

	@Override
	public void onRestoreStart(TopicPartition partition, String storeName, long startingOffset, long endingOffset) {
		records().onRestoreStart(partition, storeName, startingOffset, endingOffset);
	}

	@Override
	public void onBatchRestored(TopicPartition partition, String storeName, long batchEndOffset, long numRestored) {
		records().onBatchRestored(partition, storeName, batchEndOffset, numRestored);
	}

	@Override
	public void onRestoreEnd(TopicPartition partition, String storeName, long totalRestored) {
		records().onRestoreEnd(partition, storeName, totalRestored);
	}

}
