package io.github.incrementalrebalance.member;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;

/**
 * Lets any thread ask for a rebalance of the group. Kafka Streams 4.1 has no public call for it, and a consumer
 * may only be touched by the stream thread that owns it, so a request is only recorded here; the first main
 * consumer of the instance that polls next takes it and calls {@code enforceRebalance} on its own thread.
 * <p>
 * Requests made before a consumer takes them coalesce into one rebalance: any member rejoining rebalances the whole
 * group, so one consumer per instance taking the request is enough.
 */
public final class RebalanceTrigger {

	private final AtomicReference<String> pendingReason = new AtomicReference<>();

	private final AtomicLong requested = new AtomicLong();

	private final AtomicLong enforced = new AtomicLong();

	private final AtomicInteger generation = new AtomicInteger(-1);

	private final List<IntConsumer> generationListeners = new CopyOnWriteArrayList<>();

	/**
	 * Ask for a rebalance; returns at once.
	 * @param reason why, sent to the group coordinator and logged by it
	 */
	public void request(String reason) {
		this.requested.incrementAndGet();
		this.pendingReason.set(reason);
	}

	/**
	 * Whether a request waits for a consumer to take it.
	 * @return true while no consumer has polled since the last request
	 */
	public boolean isPending() {
		return this.pendingReason.get() != null;
	}

	/**
	 * How many requests were made.
	 * @return the number of calls to {@link #request(String)}
	 */
	public long requestedCount() {
		return this.requested.get();
	}

	/**
	 * How many rebalances this instance enforced (coalesced requests count once).
	 * @return the number of {@code enforceRebalance} calls made on a consumer
	 */
	public long enforcedCount() {
		return this.enforced.get();
	}

	/**
	 * The newest group generation a main consumer of this instance has joined.
	 * @return the generation, -1 before the first
	 */
	public int observedGeneration() {
		return this.generation.get();
	}

	/**
	 * Be told of every rebalance a main consumer of this instance completes, on that consumer's stream thread, before
	 * Kafka Streams handles its assignment (return fast, never throw).
	 * @param listener gets the generation completed
	 */
	public void addGenerationListener(IntConsumer listener) {
		this.generationListeners.add(listener);
	}

	void generationCompleted(int generationId) {
		this.generation.accumulateAndGet(generationId, Math::max);
		for (IntConsumer listener : this.generationListeners) {
			listener.accept(generationId);
		}
	}

	String take() {
		return this.pendingReason.getAndSet(null);
	}

	void enforced() {
		this.enforced.incrementAndGet();
	}

}
