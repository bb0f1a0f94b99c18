package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.github.incrementalrebalance.config.Backoff;
import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.control.ControlTopic;
import io.github.incrementalrebalance.control.ControlTopicException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control topic's life under a member: made sure of (created when missing) and read from each start, retried with
 * back-off while the cluster cannot be reached, so that an application starts as plain Kafka Streams does, without a
 * reachable broker; and why it cannot be used meanwhile. Opening runs on the runtime's check threads,
 * {@link #problem()} on any thread.
 */
final class ControlTopicLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(ControlTopicLifecycle.class);

	private static final Backoff OPEN_RETRY = Backoff.doubling(Duration.ofSeconds(1), Duration.ofSeconds(30));

	private final MemberContext context;

	/** The executor the topic is being opened on; null while stopped. */
	private volatile ScheduledExecutorService openingOn;

	/** Why the control topic is not opened (checked, created) yet; null once it is, or while stopped. */
	private volatile String openProblem;

	ControlTopicLifecycle(MemberContext context) {
		this.context = context;
	}

	/**
	 * Open the topic in the background: make sure of it, then start reading it; on failure try again later, doubling
	 * the pause, while the executor runs.
	 * @param on the executor of this start's checks
	 */
	synchronized void open(ScheduledExecutorService on) {
		this.openingOn = on;
		this.openProblem = "control topic " + this.context.controlTopic() + " is not checked yet";
		on.execute(() -> attempt(on, OPEN_RETRY));
	}

	private void attempt(ScheduledExecutorService on, Backoff retry) {
		try {
			ControlTopic.ensureExists(this.context.streamsConfig(), this.context.controlTopic(),
					LearnerConfig.replicationFactor(this.context.streamsConfig()), this.context.config().createControlTopic(),
					this.context.config().controlTopicTimeout());
			synchronized (this) {
				if (this.openingOn == on) {
					this.context.reader().start();
					this.openProblem = null;
				}
			}
		}
		catch (RuntimeException ex) {
			// not only the topic's own faults: a client that cannot be made (a keystore mid-rotation, a bootstrap
			// address that does not resolve for a moment) is tried again too, or the member would never read the topic
			if (on.isShutdown()) {
				return;
			}
			String problem = problemOf(ex);
			if (!problem.equals(this.openProblem)) {
				logger.warn("{}; trying again in the background", problem);
			}
			this.openProblem = problem;
			try {
				on.schedule(() -> attempt(on, retry.next()), retry.pause().toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (RejectedExecutionException stopped) {
				// the member stopped meanwhile
			}
		}
	}

	private String problemOf(RuntimeException ex) {
		if (ex instanceof ControlTopicException) {
			return ex.getMessage();
		}
		// Kafka says "Failed to create new KafkaAdminClient", then "Failed to create new NetworkClient": what failed is
		// the last cause (a keystore file not found, an address that does not resolve)
		Throwable cause = ex;
		while (cause.getCause() != null && cause.getCause() != cause) {
			cause = cause.getCause();
		}
		String why = (cause != ex) ? ex.getMessage() + ", caused by " + cause : ex.toString();
		return "control topic " + this.context.controlTopic() + " cannot be checked: " + why;
	}

	/**
	 * Stop reading the topic; an attempt still under way no longer starts the reader.
	 */
	synchronized void stop() {
		this.openingOn = null;
		this.openProblem = null;
		this.context.reader().close();
	}

	/**
	 * Why the member cannot use the control topic right now, if it cannot: it cannot be reached, created or read (or
	 * is not read to its end yet), another application uses it too, or the plans this member computes as leader
	 * cannot be published.
	 * @return the problem, empty when none
	 */
	Optional<String> problem() {
		if (this.openingOn == null) {
			return this.context.writer().problem();
		}
		return Optional.ofNullable(this.openProblem)
			.or(this.context.reader()::problem)
			.or(this.context.reader()::unavailable)
			.or(this.context.reader()::sharedWith)
			.or(this.context.writer()::problem);
	}

}
