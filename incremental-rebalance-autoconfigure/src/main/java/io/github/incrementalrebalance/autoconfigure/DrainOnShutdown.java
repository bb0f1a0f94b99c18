package io.github.incrementalrebalance.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;
import org.apache.kafka.streams.KafkaStreams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.LifecycleProcessor;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.support.DefaultLifecycleProcessor;

/**
 * Drains every member before its Kafka Streams closes when the application shuts down normally (SIGTERM, a scaled
 * down Deployment): stops in a phase of its own before the {@code StreamsBuilderFactoryBean}s, asynchronously as
 * Spring's lifecycle allows, and reports done once each member left its group and closed.
 * <p>
 * A leave under way when the shutdown comes (an operator's, a page's) goes on within the same bound, whether or not
 * {@code incremental-rebalance.drain.on-shutdown} is set: a platform removes a leaving pod first, since it is not ready,
 * and cutting its drain short would move its tasks cold. A stable member is drained only with that switch, read when
 * the shutdown comes (so an AOT-processed application honours the value it runs with).
 * <p>
 * Each member's drain waits at most its drain timeout ({@code incremental-rebalance.drain.timeout} or the Kafka key
 * {@code incremental.rebalance.drain.timeout.ms}; {@link #DEFAULT_BOUND} when unset), and this phase gets that plus
 * {@link #CLOSE_ALLOWANCE} from Spring's lifecycle processor, so that the other phases keep
 * {@code spring.lifecycle.timeout-per-shutdown-phase}. A member whose learners are not ready by then leaves anyway,
 * and says so ({@code forced}).
 * <p>
 * A static member ({@code group.instance.id}: a StatefulSet's pod) that is not leaving is not drained: its shutdown is
 * a restart that gets its tasks back, with its state, without a rebalance. Leaving for good is asked first, then the
 * pod is stopped.
 */
public final class DrainOnShutdown implements SmartLifecycle {

	/** Stopped before the factory beans ({@code Integer.MAX_VALUE - 1000}) and the web server's graceful shutdown. */
	static final int PHASE = Integer.MAX_VALUE - 500;

	/** The drain's bound on shutdown when no drain timeout is set: with the close allowance, 20 s of a 30 s grace. */
	static final Duration DEFAULT_BOUND = Duration.ofSeconds(15);

	/** What a forced leave needs after its deadline to close Kafka Streams (commit, close the tasks, leave). */
	public static final Duration CLOSE_ALLOWANCE = Duration.ofSeconds(5);

	private static final Logger logger = LoggerFactory.getLogger(DrainOnShutdown.class);

	private final MemberRuntimes runtimes;

	private final Supplier<IncrementalRebalanceProperties> properties;

	private final Supplier<Optional<LifecycleProcessor>> lifecycleProcessor;

	private final Duration otherPhases;

	private volatile boolean running;

	/**
	 * @param runtimes the members to drain
	 * @param properties the settings, read when they act
	 * @param lifecycleProcessor the context's lifecycle processor, once it exists
	 * @param otherPhases how long Spring waits for every other lifecycle phase to stop
	 */
	DrainOnShutdown(MemberRuntimes runtimes, Supplier<IncrementalRebalanceProperties> properties,
			Supplier<Optional<LifecycleProcessor>> lifecycleProcessor, Duration otherPhases) {
		this.runtimes = runtimes;
		this.properties = properties;
		this.lifecycleProcessor = lifecycleProcessor;
		this.otherPhases = otherPhases;
	}

	/**
	 * How long the drain on shutdown of a member may wait for its learners; with {@link #CLOSE_ALLOWANCE}, what a
	 * shutdown of the application may spend in it (a Kubernetes grace period must cover both and the web server's
	 * graceful shutdown).
	 * @param runtime the member
	 * @return the bound
	 */
	public static Duration bound(MemberRuntime runtime) {
		return runtime.drainTimeout().orElse(DEFAULT_BOUND);
	}

	/**
	 * What this phase may take: the longest bound of the members, with the close allowance.
	 * @return the phase's shutdown timeout
	 */
	Duration phaseTimeout() {
		return this.runtimes.all()
			.stream()
			.map(DrainOnShutdown::bound)
			.max(Duration::compareTo)
			.orElse(DEFAULT_BOUND)
			.plus(CLOSE_ALLOWANCE);
	}

	/**
	 * Gives this phase its own shutdown timeout, and says at start, not at the first SIGTERM, what a shutdown may
	 * spend in it: the pod's grace period must cover that and the other phases.
	 */
	@Override
	public void start() {
		this.running = true;
		Duration phase = phaseTimeout();
		Optional<LifecycleProcessor> processor = this.lifecycleProcessor.get();
		if (processor.isPresent() && processor.get() instanceof DefaultLifecycleProcessor lifecycle) {
			lifecycle.setTimeoutForShutdownPhase(PHASE, phase.toMillis());
		}
		else {
			logger.warn("The application's lifecycle processor ({}) is not Spring's DefaultLifecycleProcessor: the "
					+ "drain on shutdown cannot get a shutdown phase of {} of its own, and is bounded by what that "
					+ "processor allows", processor.map((bean) -> bean.getClass().getName()).orElse("none"), phase);
		}
		if (this.properties.get().drain().onShutdown()) {
			logger.info("A shutdown drains this instance first, for at most {} ({} for learners, {} for Kafka Streams "
					+ "to close), then the other phases take up to {} each "
					+ "(spring.lifecycle.timeout-per-shutdown-phase): size a pod's terminationGracePeriodSeconds to "
					+ "{} and the web server's graceful shutdown", phase, phase.minus(CLOSE_ALLOWANCE), CLOSE_ALLOWANCE,
					this.otherPhases, phase);
		}
	}

	@Override
	public void stop() {
		CountDownLatch stopped = new CountDownLatch(1);
		stop(stopped::countDown);
		try {
			stopped.await(phaseTimeout().toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Bound every leave under way, ask every stable member to leave (with {@code drain.on-shutdown}), then tell Spring
	 * once all of them closed (or the bound and the close allowance passed), without holding the thread that stops the
	 * context.
	 */
	@Override
	public void stop(Runnable callback) {
		this.running = false;
		boolean drainStable = this.properties.get().drain().onShutdown();
		List<MemberRuntime> closing = new ArrayList<>();
		Duration longest = Duration.ZERO;
		for (MemberRuntime runtime : this.runtimes.all()) {
			Duration bound = bound(runtime);
			MemberState state = runtime.state();
			if (state == MemberState.LEAVING) {
				runtime.endLeaveWithin(bound);
			}
			else if (state == MemberState.STABLE && drainStable) {
				drain(runtime, bound);
			}
			if (runtime.state() != MemberState.STABLE && runtime.state() != MemberState.CLOSED) {
				closing.add(runtime);
				longest = (bound.compareTo(longest) > 0) ? bound : longest;
			}
		}
		awaitClosed(closing, longest.plus(CLOSE_ALLOWANCE), callback);
	}

	private void drain(MemberRuntime runtime, Duration bound) {
		if (!runtime.streamsState().filter(KafkaStreams.State::isRunningOrRebalancing).isPresent()) {
			// not started (auto-startup=false), or failed (health says so): nothing to hand over
			return;
		}
		Optional<String> staticId = runtime.groupInstanceId();
		if (staticId.isPresent()) {
			logger.info("{} is a static member (group.instance.id {}): a shutdown keeps its tasks for its restart, "
					+ "without a drain or a rebalance; to remove it for good, drain it first (the endpoint's or the "
					+ "command line's leave), then stop it", runtime.identity().instanceId(), staticId.get());
			return;
		}
		try {
			runtime.leave(Optional.of(bound), "shutdown", true);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not drain {} before shutdown: {}", runtime.identity().instanceId(), ex.getMessage());
		}
	}

	private static void awaitClosed(List<MemberRuntime> closing, Duration limit, Runnable callback) {
		CountDownLatch closed = new CountDownLatch(closing.size());
		for (MemberRuntime runtime : closing) {
			// once per member: it may close between the listener's registration and the look that follows
			AtomicBoolean counted = new AtomicBoolean();
			Runnable countOnce = () -> {
				if (counted.compareAndSet(false, true)) {
					closed.countDown();
				}
			};
			runtime.addStateListener((state) -> {
				if (state == MemberState.CLOSED) {
					countOnce.run();
				}
			});
			if (runtime.state() == MemberState.CLOSED) {
				countOnce.run();
			}
		}
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
