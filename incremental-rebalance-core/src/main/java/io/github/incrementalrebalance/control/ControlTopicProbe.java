package io.github.incrementalrebalance.control;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import io.github.incrementalrebalance.config.LearnerConfig;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the cluster about the control topic at an interval: a consumer only logs the fetch errors of a topic that is
 * gone and answers from its cached metadata, so whether the topic can be read, and which topic of that name it is
 * (a topic deleted and created again has a new id), comes from here.
 * <p>
 * Runs on a thread of its own, so a slow or unreachable cluster never holds up the reading of the topic; any thread may
 * ask what it found.
 */
final class ControlTopicProbe implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(ControlTopicProbe.class);

	private final String topic;

	private final Supplier<Admin> admins;

	private final Duration interval;

	private final Duration timeout;

	private final AtomicReference<String> problem = new AtomicReference<>();

	private final AtomicReference<Described> described = new AtomicReference<>();

	/** How many times the cluster described the topic; only the probe's thread counts. */
	private long answers;

	/** Whether the last answer took more than half the timeout; the probe's thread only. */
	private boolean slow;

	private ScheduledExecutorService executor;

	/** Made on the probe's thread at its first run, closed when the probe stops; only that thread touches it. */
	private Admin admin;

	/**
	 * @param topic the control topic
	 * @param admins makes the admin client the probe asks with
	 * @param interval how long it waits after one answer before it asks again
	 * @param timeout how long one answer may take before the topic is reported unreadable
	 */
	ControlTopicProbe(String topic, Supplier<Admin> admins, Duration interval, Duration timeout) {
		this.topic = topic;
		this.admins = admins;
		this.interval = interval;
		this.timeout = timeout;
	}

	synchronized void start() {
		if (this.executor != null) {
			return;
		}
		this.executor = Executors.newSingleThreadScheduledExecutor((runnable) -> {
			Thread thread = new Thread(runnable, "incremental-rebalance-control-probe-" + this.topic);
			thread.setDaemon(true);
			return thread;
		});
		this.executor.scheduleWithFixedDelay(this::probe, this.interval.toMillis(), this.interval.toMillis(),
				TimeUnit.MILLISECONDS);
	}

	/**
	 * Why the cluster could not describe the topic at the last probe, if it could not.
	 * @return the problem, empty while the topic is there
	 */
	Optional<String> problem() {
		return Optional.ofNullable(this.problem.get());
	}

	/**
	 * The topic as last described.
	 * @return its id and which answer that was, empty before the first answer and once the topic was found gone
	 */
	Optional<Described> described() {
		return Optional.ofNullable(this.described.get());
	}

	private void probe() {
		try {
			if (this.admin == null) {
				this.admin = this.admins.get();
			}
			long asked = System.nanoTime();
			// the admin gives up at the same time, so that a slow cluster does not pile up the requests of every probe
			TopicDescription description = this.admin
				.describeTopics(List.of(this.topic), new DescribeTopicsOptions().timeoutMs((int) this.timeout.toMillis()))
				.allTopicNames()
				.get(this.timeout.toMillis(), TimeUnit.MILLISECONDS)
				.get(this.topic);
			this.described.set(new Described(description.topicId(), ++this.answers));
			if (this.problem.getAndSet(null) != null) {
				logger.info("Control topic {} is there again", this.topic);
			}
			tookAnswering(Duration.ofNanos(System.nanoTime() - asked).truncatedTo(ChronoUnit.MILLIS));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof UnknownTopicOrPartitionException) {
				// a deleted topic's id no longer names anything: nobody is to take it for the topic of that name
				this.described.set(null);
				report("the topic does not exist (create it, or let incremental-rebalance create it at start with "
						+ "incremental.rebalance.control.topic.create=true)");
			}
			else if (ex.getCause() instanceof org.apache.kafka.common.errors.TimeoutException) {
				reportUnanswered();
			}
			else {
				report(why(ex.getCause()));
			}
		}
		catch (TimeoutException ex) {
			reportUnanswered();
		}
		catch (RuntimeException ex) {
			report(String.valueOf(ex));
		}
	}

	/**
	 * What a failure to read or describe the control topic means, in the words of its fix.
	 * @param failure the failure
	 * @return the failure, and for a missing ACL the permissions the application's principal needs, for a timeout the
	 * setting that bounds it
	 */
	static String why(Throwable failure) {
		if (failure instanceof TopicAuthorizationException) {
			return failure + ": the application's principal needs Read, Write and Describe on the topic (operators "
					+ "need them too; and Create, unless the topic is made beforehand)";
		}
		if (failure instanceof org.apache.kafka.common.errors.TimeoutException) {
			return failure + " (if the cluster is only slow, raise " + LearnerConfig.CONTROL_TOPIC_TIMEOUT_MS_CONFIG
					+ ")";
		}
		return String.valueOf(failure);
	}

	/**
	 * Say when the cluster comes close to the timeout, before it passes it and the topic counts as unreadable.
	 */
	private void tookAnswering(Duration took) {
		boolean slowNow = took.compareTo(this.timeout.dividedBy(2)) > 0;
		if (slowNow && !this.slow) {
			logger.warn("The cluster took {} of the {} allowed ({}) to describe control topic {}: past that the topic "
					+ "counts as unreadable and leaves are refused; raise the setting if the cluster is only slow", took,
					this.timeout, LearnerConfig.CONTROL_TOPIC_TIMEOUT_MS_CONFIG, this.topic);
		}
		else if (!slowNow && this.slow) {
			logger.info("The cluster describes control topic {} within half its timeout again ({})", this.topic, took);
		}
		this.slow = slowNow;
	}

	private void reportUnanswered() {
		report("the cluster did not describe it within " + this.timeout + " ("
				+ LearnerConfig.CONTROL_TOPIC_TIMEOUT_MS_CONFIG + ")");
	}

	private void report(String why) {
		String now = "control topic " + this.topic + " cannot be read: " + why;
		if (!now.equals(this.problem.getAndSet(now))) {
			logger.warn("The {}; asking again every {}, the last view is kept meanwhile", now, this.interval);
		}
	}

	/**
	 * What the cluster said of the topic at one probe.
	 * @param topicId the topic's id
	 * @param answer which answer that was, counted from 1: a later answer has a higher number
	 */
	record Described(Uuid topicId, long answer) {
	}

	@Override
	public synchronized void close() {
		if (this.executor == null) {
			return;
		}
		ScheduledExecutorService stopping = this.executor;
		this.executor = null;
		stopping.shutdownNow();
		try {
			stopping.awaitTermination(this.interval.toMillis() + 1_000, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		// the probe's thread has stopped, or will not run again: the admin is no longer touched
		if (this.admin != null) {
			this.admin.close(Duration.ofSeconds(5));
			this.admin = null;
		}
		this.problem.set(null);
	}

}
