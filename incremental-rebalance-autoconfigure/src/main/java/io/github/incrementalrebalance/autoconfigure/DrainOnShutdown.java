package io.github.incrementalrebalance.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;

/**
 * Drains every member before its Kafka Streams closes when the application shuts down normally (SIGTERM, a scaled
 * down Deployment): stops in a phase before the {@code StreamsBuilderFactoryBean}s, asynchronously as Spring's
 * lifecycle allows, and reports done once each member left its group and closed.
 * <p>
 * Spring waits at most {@code spring.lifecycle.timeout-per-shutdown-phase} for a phase, and Kubernetes kills the pod
 * at its grace period: each member's drain is bounded by the tighter of its drain timeout
 * ({@code incremental-rebalance.drain.timeout} or the Kafka key {@code incremental.rebalance.drain.timeout.ms}; 15 s
 * when unset) and that phase timeout less {@link #CLOSE_ALLOWANCE} for Kafka Streams to close after a forced leave.
 * A member whose learners are not ready by then leaves anyway, and says so ({@code forced}).
 * <p>
 * A static member ({@code group.instance.id}: a StatefulSet's pod) is not drained: its shutdown is a restart that gets
 * its tasks back, with its state, without a rebalance. Leaving for good is asked first, then the pod is stopped.
 */
public final class DrainOnShutdown implements SmartLifecycle {

	/** Stopped before the factory beans ({@code Integer.MAX_VALUE - 1000}). */
	static final int PHASE = Integer.MAX_VALUE - 500;

	/** The drain's bound when no drain timeout is set: with the close allowance, 20 s of a 30 s grace period. */
	static final Duration DEFAULT_BOUND = Duration.ofSeconds(15);

	/** What a forced leave needs after its deadline to close Kafka Streams (commit, close the tasks, leave). */
	public static final Duration CLOSE_ALLOWANCE = Duration.ofSeconds(5);

	private static final Logger logger = LoggerFactory.getLogger(DrainOnShutdown.class);

	private final MemberRuntimes runtimes;

	private final Duration shutdownPhaseTimeout;

	private final Duration fits;

	private volatile boolean running;

	/**
	 * @param runtimes the members to drain
	 * @param shutdownPhaseTimeout how long Spring waits for one lifecycle phase to stop
	 */
	DrainOnShutdown(MemberRuntimes runtimes, Duration shutdownPhaseTimeout) {
		this.runtimes = runtimes;
		this.shutdownPhaseTimeout = shutdownPhaseTimeout;
		Duration fits = shutdownPhaseTimeout.minus(CLOSE_ALLOWANCE);
		this.fits = fits.isNegative() ? Duration.ZERO : fits;
	}

	/**
	 * How long the drain on shutdown of a member may wait for its learners; with {@link #CLOSE_ALLOWANCE}, what a
	 * shutdown of the application may spend in it (a Kubernetes grace period must cover both).
	 * @param runtime the member
	 * @return the bound
	 */
	public Duration bound(MemberRuntime runtime) {
		Duration wanted = runtime.drainTimeout().orElse(DEFAULT_BOUND);
		return (wanted.compareTo(this.fits) > 0) ? this.fits : wanted;
	}

	/**
	 * Says at start, not at the first SIGTERM, what a member's drain on shutdown may take: at INFO when the shutdown
	 * phase bounds it below the member's drain timeout (a leave asked otherwise keeps that timeout), at WARN when
	 * the phase leaves no time to drain at all.
	 */
	@Override
	public void start() {
		this.running = true;
		for (MemberRuntime runtime : this.runtimes.all()) {
			if (runtime.groupInstanceId().isEmpty()) {
				Duration wanted = runtime.drainTimeout().orElse(DEFAULT_BOUND);
				cutShort(runtime.identity().instanceId(), wanted).ifPresent((message) -> {
					if (this.fits.isZero()) {
						logger.warn(message);
					}
					else {
						logger.info(message);
					}
				});
			}
		}
	}

	/**
	 * What a drain on shutdown may take when the shutdown phase bounds it below the member's drain timeout.
	 * @param instanceId the member
	 * @param wanted its drain timeout, or the default bound
	 * @return what it may take and what to set for more, or empty when the timeout fits
	 */
	Optional<String> cutShort(String instanceId, Duration wanted) {
		if (wanted.compareTo(this.fits) <= 0) {
			return Optional.empty();
		}
		return Optional.of(String.format(Locale.ROOT, "A drain on shutdown of %s may take %s, not its drain "
				+ "timeout of %s: Spring waits at most %s (spring.lifecycle.timeout-per-shutdown-phase) for it, less %s "
				+ "for Kafka Streams to close; learners that need longer end it forced. For the whole %s, set "
				+ "spring.lifecycle.timeout-per-shutdown-phase to at least %s and the pod's "
				+ "terminationGracePeriodSeconds above that plus the web server's graceful shutdown", instanceId,
				this.fits, wanted, this.shutdownPhaseTimeout, CLOSE_ALLOWANCE, wanted, wanted.plus(CLOSE_ALLOWANCE)));
	}

	@Override
	public void stop() {
		CountDownLatch stopped = new CountDownLatch(1);
		stop(stopped::countDown);
		try {
			stopped.await(this.fits.plus(CLOSE_ALLOWANCE).toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Ask every stable member to leave, bounded, then tell Spring once all closed (or the bound and the close allowance
	 * passed), without holding the thread that stops the context.
	 */
	@Override
	public void stop(Runnable callback) {
		this.running = false;
		List<MemberRuntime> leaving = new ArrayList<>();
		Duration longest = Duration.ZERO;
		for (MemberRuntime runtime : this.runtimes.all()) {
			if (runtime.state() != MemberState.STABLE) {
				continue;
			}
			Optional<String> staticId = runtime.groupInstanceId();
			if (staticId.isPresent()) {
				logger.info("{} is a static member (group.instance.id {}): a shutdown keeps its tasks for its restart, "
						+ "without a drain or a rebalance; to remove it for good, drain it first (the endpoint's or the "
						+ "command line's leave), then stop it", runtime.identity().instanceId(), staticId.get());
				continue;
			}
			Duration bound = bound(runtime);
			if (bound.compareTo(runtime.drainTimeout().orElse(DEFAULT_BOUND)) < 0) {
				logger.info("The drain on shutdown of {} is bounded to {}: Spring waits at most {} "
						+ "(spring.lifecycle.timeout-per-shutdown-phase) for it, less {} for Kafka Streams to close",
						runtime.identity().instanceId(), bound, this.shutdownPhaseTimeout, CLOSE_ALLOWANCE);
			}
			try {
				if (runtime.leave(Optional.of(bound), "shutdown", true)) {
					leaving.add(runtime);
					longest = (bound.compareTo(longest) > 0) ? bound : longest;
				}
			}
			catch (RuntimeException ex) {
				logger.warn("Could not drain {} before shutdown: {}", runtime.identity().instanceId(), ex.getMessage());
			}
		}
		CountDownLatch closed = new CountDownLatch(leaving.size());
		leaving.forEach((runtime) -> runtime.addStateListener((state) -> {
			if (state == MemberState.CLOSED) {
				closed.countDown();
			}
		}));
		leaving.stream().filter((runtime) -> runtime.state() == MemberState.CLOSED).forEach((runtime) -> closed.countDown());
		Duration limit = longest.plus(CLOSE_ALLOWANCE);
		Thread waiter = new Thread(() -> {
			try {
				if (!closed.await(limit.toMillis(), TimeUnit.MILLISECONDS)) {
					logger.warn("Members still closing {} after the drain on shutdown started: the shutdown goes on",
							limit);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				callback.run();
			}
		}, "incremental-rebalance-drain-on-shutdown");
		waiter.setDaemon(true);
		waiter.start();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

}
