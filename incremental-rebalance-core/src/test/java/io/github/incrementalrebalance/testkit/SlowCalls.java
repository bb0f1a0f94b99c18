package io.github.incrementalrebalance.testkit;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * Faults of a call for the {@link CountingTopology}: a stream thread stuck in a slow call (a remote lookup that hangs,
 * a long garbage collection), or one that fails. Once armed for an instance, the next record that instance processes
 * holds its stream thread for the time given (the thread neither polls nor rejoins a rebalance meanwhile, so a
 * rebalance of the group takes that long), or throws, which ends the stream thread. Armed from the test's thread,
 * taken on a stream thread.
 */
public final class SlowCalls {

	private final Map<String, Duration> armed = new ConcurrentHashMap<>();

	private final Set<String> failing = ConcurrentHashMap.newKeySet();

	/**
	 * Hold the next record the instance processes.
	 * @param instance the instance's name
	 * @param duration how long its stream thread is stuck
	 */
	public void armNext(String instance, Duration duration) {
		this.armed.put(instance, duration);
	}

	/**
	 * Fail the next record the instance processes: its stream thread ends, and the instance's uncaught exception
	 * handler decides what follows.
	 * @param instance the instance's name
	 */
	public void failNext(String instance) {
		this.failing.add(instance);
	}

	/**
	 * Whether a failure armed with {@link #failNext} has not happened yet.
	 * @param instance the instance's name
	 * @return true until the instance processed a record after {@link #failNext}
	 */
	public boolean isFailing(String instance) {
		return this.failing.contains(instance);
	}

	/**
	 * Whether an armed call has not been taken yet.
	 * @param instance the instance's name
	 * @return true until the instance processed a record after {@link #armNext}
	 */
	public boolean isArmed(String instance) {
		return this.armed.containsKey(instance);
	}

	/**
	 * Called by the processor for each record: returns at once unless a slow call is armed for the instance.
	 * @param instance the instance processing
	 */
	void call(String instance) {
		if (this.failing.remove(instance)) {
			throw new IllegalStateException("a call of " + instance + " failed, as the test asked");
		}
		Duration hold = this.armed.remove(instance);
		if (hold != null) {
			long until = System.nanoTime() + hold.toNanos();
			while (System.nanoTime() - until < 0) {
				LockSupport.parkNanos(until - System.nanoTime());
			}
		}
	}

}
