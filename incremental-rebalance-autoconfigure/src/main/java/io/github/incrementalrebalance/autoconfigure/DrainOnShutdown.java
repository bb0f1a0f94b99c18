package io.github.incrementalrebalance.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;

import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;

/**
 * Drains every member before its Kafka Streams closes when the application shuts down normally (SIGTERM, a scaled
 * down Deployment): stops in a phase before the {@code StreamsBuilderFactoryBean}s and waits, bounded, until each
 * member left its group.
 */
class DrainOnShutdown implements SmartLifecycle {

	/** Stopped before the factory beans ({@code Integer.MAX_VALUE - 1000}). */
	static final int PHASE = Integer.MAX_VALUE - 500;

	private static final Logger logger = LoggerFactory.getLogger(DrainOnShutdown.class);

	private static final Duration DEFAULT_BOUND = Duration.ofSeconds(25);

	private static final Duration CLOSE_ALLOWANCE = Duration.ofSeconds(10);

	private final MemberRuntimes runtimes;

	private final Duration bound;

	private volatile boolean running;

	DrainOnShutdown(MemberRuntimes runtimes, Optional<Duration> scaleDownTimeout) {
		this.runtimes = runtimes;
		this.bound = scaleDownTimeout.orElse(DEFAULT_BOUND);
	}

	@Override
	public void start() {
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
		for (MemberRuntime runtime : this.runtimes.all()) {
			if (runtime.state() == MemberState.STABLE) {
				try {
					runtime.leave(Optional.of(this.bound), "shutdown", true);
				}
				catch (RuntimeException ex) {
					logger.warn("Could not drain {} before shutdown: {}", runtime.identity().instanceId(),
							ex.getMessage());
				}
			}
		}
		Instant until = Instant.now().plus(this.bound).plus(CLOSE_ALLOWANCE);
		while (Instant.now().isBefore(until) && this.runtimes.all().stream()
			.anyMatch((runtime) -> runtime.state() != MemberState.CLOSED && runtime.state() != MemberState.STABLE)) {
			LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
		}
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
