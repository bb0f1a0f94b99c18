package io.github.incrementalrebalance.control;

import java.util.concurrent.CompletableFuture;

/**
 * Writes records to the control topic.
 */
public interface ControlWriter {

	/**
	 * Write a record.
	 * @param record the record
	 * @return completes when the cluster acknowledged it
	 */
	CompletableFuture<?> write(ControlRecord record);

	/**
	 * Write a tombstone.
	 * @param key the key whose record goes
	 * @return completes when the cluster acknowledged it
	 */
	CompletableFuture<?> tombstone(String key);

}
