package io.github.incrementalrebalance.testkit;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * A restore rate limit that a test can change or lift while the instance runs, so it decides how long a warm-up
 * lasts instead of racing a restore that takes a few hundred milliseconds.
 */
public final class RestoreThrottle {

	private static final long SLICE_NANOS = Duration.ofMillis(20).toNanos();

	private volatile long recordsPerSecond;

	private RestoreThrottle(long recordsPerSecond) {
		this.recordsPerSecond = recordsPerSecond;
	}

	/**
	 * A throttle letting a number of records through per second.
	 * @param recordsPerSecond the rate, at least 1
	 * @return the throttle
	 */
	public static RestoreThrottle of(long recordsPerSecond) {
		if (recordsPerSecond < 1) {
			throw new IllegalArgumentException("recordsPerSecond must be at least 1, was " + recordsPerSecond);
		}
		return new RestoreThrottle(recordsPerSecond);
	}

	/**
	 * A throttle that lets everything through until a rate is set.
	 * @return the throttle
	 */
	public static RestoreThrottle unlimited() {
		return new RestoreThrottle(Long.MAX_VALUE);
	}

	/**
	 * Hold restores to a rate from now on.
	 * @param recordsPerSecond the rate, at least 1
	 */
	public void set(long recordsPerSecond) {
		if (recordsPerSecond < 1) {
			throw new IllegalArgumentException("recordsPerSecond must be at least 1, was " + recordsPerSecond);
		}
		this.recordsPerSecond = recordsPerSecond;
	}

	/**
	 * Stop restores where they are until {@link #release()} or a new rate: a test that has seen what it needs of a
	 * warm-up keeps it unfinished for as long as its next steps take, however slow the machine. A held restore
	 * consumer's polls return nothing rather than block, so the thread that restores still adds and removes tasks
	 * when the group rebalances.
	 */
	public void hold() {
		this.recordsPerSecond = 0;
	}

	/**
	 * Let restores run at full speed from now on, ending any pause in progress.
	 */
	public void release() {
		this.recordsPerSecond = Long.MAX_VALUE;
	}

	/**
	 * Whether restores are held, after waiting for a release for up to a poll's timeout (at most one short slice).
	 * @param timeout the poll's timeout
	 * @return whether the poll must return nothing
	 */
	boolean heldFor(Duration timeout) {
		if (this.recordsPerSecond != 0) {
			return false;
		}
		LockSupport.parkNanos(Math.min(timeout.toNanos(), SLICE_NANOS));
		return this.recordsPerSecond == 0;
	}

	/**
	 * Hold the calling restore thread for as long as the given records take at the current rate, in short slices so
	 * that a release or a new rate takes effect at once.
	 * @param records records just polled
	 */
	void pace(int records) {
		long start = System.nanoTime();
		while (!Thread.currentThread().isInterrupted()) {
			long rate = this.recordsPerSecond;
			if (rate == Long.MAX_VALUE || rate == 0) {
				return;
			}
			long due = start + (long) (records * (1_000_000_000.0 / rate));
			long left = due - System.nanoTime();
			if (left <= 0) {
				return;
			}
			LockSupport.parkNanos(Math.min(left, SLICE_NANOS));
		}
	}

}
