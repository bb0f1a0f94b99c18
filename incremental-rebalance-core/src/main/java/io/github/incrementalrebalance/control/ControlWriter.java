package io.github.incrementalrebalance.control;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.incrementalrebalance.config.LearnerConfig;

/**
 * Writes records to the control topic. {@link #write} and {@link #tombstone} never block their caller (a stream
 * thread, the reader's thread, a producer's callback may call them); {@link #writeAndWait} is for the operator's
 * threads, which must know what became of a request.
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

	/**
	 * How long {@link #writeAndWait} waits for the cluster's answer: one attempt of the writer's producer,
	 * {@value LearnerConfig#CONTROL_TOPIC_TIMEOUT_MS_CONFIG}.
	 * @return the wait
	 */
	Duration acknowledgementWait();

	/**
	 * Whether a write may still land: false once the writer is closed, when every write fails at once.
	 * @return true until closed
	 */
	default boolean isOpen() {
		return true;
	}

	/**
	 * Write a record and wait for the cluster's answer.
	 * @param record the record
	 * @param what what the write does, for the message ({@code "write the leave request"})
	 * @throws ControlWriteException when it failed, or its outcome is unknown (see
	 * {@link ControlWriteException#outcomeUnknown()})
	 */
	default void writeAndWait(ControlRecord record, String what) {
		try {
			write(record).get(acknowledgementWait().toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new ControlWriteException("Interrupted while waiting to " + what + ": whether it was written is "
					+ "unknown", true, ex);
		}
		catch (TimeoutException ex) {
			throw new ControlWriteException("Tried to " + what + ": no answer from the control topic within "
					+ acknowledgementWait() + " (" + LearnerConfig.CONTROL_TOPIC_TIMEOUT_MS_CONFIG + "), so whether it "
					+ "was written is unknown; it may still land: look at the member's state before asking again", true,
					ex);
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			// the producer gives up on a batch it may already have sent: that one can still be on the topic
			boolean unknown = cause instanceof org.apache.kafka.common.errors.TimeoutException;
			throw new ControlWriteException(unknown
					? "Tried to " + what + ": the producer gave up (" + cause + "), so whether it was written is "
							+ "unknown; it may have landed: look at the member's state before asking again"
					: "Cannot " + what + " to the control topic: " + cause, unknown, cause);
		}
	}

}
