package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The periodic work of one start of the member, on threads of its own named
 * {@code incremental-rebalance-member-<id>-<incarnation>}:
 * opening the control topic, moving the leave on, following the learners. Three threads, so that the leave's bounds
 * never wait behind the learners' lag reads or the control topic's opening, which ask the cluster. Started and stopped
 * by the runtime (the application's thread); {@link #checkLeaveNow()} from any thread.
 */
final class MemberChecks {

	private static final Logger logger = LoggerFactory.getLogger(MemberChecks.class);

	private static final Duration CHECK_INTERVAL = Duration.ofMillis(250);

	/** How long a stop waits for a check under way (a lag read asks the cluster) before the next start runs. */
	private static final Duration STOP_WAIT = Duration.ofSeconds(10);

	private final MemberStart start;

	private final ScheduledExecutorService threads;

	private boolean duplicateReported;

	private MemberChecks(MemberStart start) {
		this.start = start;
		String name = "incremental-rebalance-member-" + start.identity().instanceId() + "-"
				+ start.identity().incarnation();
		this.threads = Executors.newScheduledThreadPool(3, (task) -> {
			Thread thread = new Thread(task, name);
			thread.setDaemon(true);
			return thread;
		});
	}

	/**
	 * Start the checks of a start of the member, and open the control topic on their threads.
	 * @param start the start
	 * @param controlTopic the control topic's life
	 * @return the running checks
	 */
	static MemberChecks start(MemberStart start, ControlTopicLifecycle controlTopic) {
		MemberChecks checks = new MemberChecks(start);
		controlTopic.open(checks.threads);
		long interval = CHECK_INTERVAL.toMillis();
		checks.threads.scheduleWithFixedDelay(checks::checkLeave, interval, interval, TimeUnit.MILLISECONDS);
		checks.threads.scheduleWithFixedDelay(checks::checkLearners, interval, interval, TimeUnit.MILLISECONDS);
		return checks;
	}

	/**
	 * Move a leave on now rather than at the next periodic check: a plan just read may hand this member's tasks over.
	 */
	void checkLeaveNow() {
		if (this.start.drain().state() != MemberState.LEAVING) {
			return;
		}
		try {
			this.threads.execute(this::checkLeave);
		}
		catch (RejectedExecutionException stopped) {
			// this start's checks stopped meanwhile
		}
	}

	private synchronized void checkLeave() {
		if (!this.duplicateReported && this.start.hasDuplicateInstanceId()) {
			this.duplicateReported = true;
			logger.error("Another live member uses instance id {}: the operator cannot tell them apart, and a leave "
					+ "for this id is refused; set incremental.rebalance.instance.id", this.start.identity().instanceId());
		}
		try {
			this.start.drain().check();
			this.start.checkDepartedLeaves();
		}
		catch (RuntimeException ex) {
			logger.warn("Leave check of {} failed", this.start.identity().instanceId(), ex);
		}
	}

	private void checkLearners() {
		try {
			this.start.checkLearners();
		}
		catch (RuntimeException ex) {
			logger.warn("Learner check of {} failed", this.start.identity().instanceId(), ex);
		}
	}

	/**
	 * Stop the checks and wait for one under way, so that nothing of this start runs beside the next one.
	 */
	void stop() {
		this.threads.shutdownNow();
		try {
			if (!this.threads.awaitTermination(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
				logger.warn("A check of {} still runs {} after its start stopped", this.start.identity().instanceId(),
						STOP_WAIT);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.start.stopped();
	}

}
