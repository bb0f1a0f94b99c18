package io.github.incrementalrebalance.control;

import java.time.Duration;
import java.util.concurrent.CompletionException;

import io.github.incrementalrebalance.config.Backoff;
import org.apache.kafka.common.errors.RetriableException;

/**
 * When a plan that failed to publish is tried again. A failure the cluster may get over by itself (a timeout, a
 * leader moving, a link down) is tried again after a second, so that a hand-over planned during a partition lands as
 * soon as it heals; one that only an operator can mend (no ACL to write the control topic, a record too large) backs
 * off, doubling up to a minute, so that a group without the ACL does not ask the broker every second. Pure; called on
 * the control-topic writer's thread.
 */
final class PlanRetry {

	static final Duration RETRIABLE = Duration.ofSeconds(1);

	static final Duration LONGEST = Duration.ofMinutes(1);

	private static final Backoff NOT_RETRIABLE = Backoff.doubling(RETRIABLE, LONGEST);

	private PlanRetry() {
	}

	/**
	 * @param failure why the last try failed
	 * @param failuresInARow how many tries in a row failed for a reason retrying cannot mend, this one included
	 * @return how long to wait before the next try
	 */
	static Duration after(Throwable failure, int failuresInARow) {
		if (isRetriable(failure)) {
			return RETRIABLE;
		}
		return NOT_RETRIABLE.pauseAfter(failuresInARow);
	}

	/**
	 * @param failure why a try failed, as a send's future completes (possibly wrapped)
	 * @return whether Kafka says the cluster may get over it by itself
	 */
	static boolean isRetriable(Throwable failure) {
		return cause(failure) instanceof RetriableException;
	}

	/**
	 * @param failure why a try failed, as a send's future completes (possibly wrapped)
	 * @return what Kafka said, without the futures' wrapping
	 */
	static Throwable cause(Throwable failure) {
		Throwable cause = failure;
		while (cause instanceof CompletionException && cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

}
