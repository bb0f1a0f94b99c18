package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;

/**
 * Lets any thread ask for a rebalance of the group. Kafka Streams has no public call for it, and a consumer may only
 * be touched by the stream thread that owns it, so a request is only recorded here; the first main consumer of the
 * instance that polls takes it and begins an {@link InstanceRound}, which every other main consumer of the instance
 * (each a member of the group) joins at its next poll: a round completes only once all of them have joined.
 * <p>
 * The other members learn of a round only at their next heartbeat, so one this instance begins for its own reasons
 * ({@link #request}) or by itself is announced to them ({@link #addEnforcementListener}), and an announcement read from
 * another member is followed ({@link #follow}) without being announced again.
 * <p>
 * While a round this instance joined is in flight, its own requests wait and are dropped once it completes: the
 * assignment reads every member's state as of its join, and whoever still needs another round asks again (the learner
 * watcher once per plan, a leave until a plan acknowledges it). Its own rounds are at least a heartbeat interval apart
 * ({@link #spaceOwnRounds}), requests meanwhile merged. Rounds are counted once per instance, by
 * {@link RebalanceCause}.
 */
public final class RebalanceTrigger {

	private static final Duration MAX_JOIN = Duration.ofSeconds(30);

	/** This instance's own request, waiting; announced when enforced. */
	private final AtomicReference<Request> own = new AtomicReference<>();

	/** Another member's round, waiting to be joined; never announced again. */
	private final AtomicReference<Request> others = new AtomicReference<>();

	private final AtomicLong requested = new AtomicLong();

	private final AtomicLong enforced = new AtomicLong();

	private final AtomicLong followed = new AtomicLong();

	private final List<Consumer<String>> enforcementListeners = new CopyOnWriteArrayList<>();

	private final AtomicInteger generation = new AtomicInteger(-1);

	private final List<IntConsumer> generationListeners = new CopyOnWriteArrayList<>();

	private final Map<RebalanceCause, AtomicLong> rounds = new EnumMap<>(RebalanceCause.class);

	private final AtomicReference<InstanceRound> round = new AtomicReference<>(InstanceRound.NONE);

	private final LongSupplier nanos;

	/** When this instance last joined a rebalance that has not completed yet; 0 when none is in flight. */
	private volatile long joiningSince;

	/** The generation this instance had completed when it joined the rebalance in flight: that one is later. */
	private volatile int joinedAfter = -1;

	/** When this instance last enforced a rebalance of its own; 0 before the first. */
	private volatile long lastOwnRound;

	private volatile long ownRoundSpacing;

	public RebalanceTrigger() {
		this(System::nanoTime);
	}

	/**
	 * @param nanos elapsed time, in nanoseconds
	 */
	RebalanceTrigger(LongSupplier nanos) {
		this.nanos = nanos;
		for (RebalanceCause cause : RebalanceCause.values()) {
			this.rounds.put(cause, new AtomicLong());
		}
	}

	/**
	 * Ask for a rebalance for the application's own reasons; returns at once.
	 * @param reason why, sent to the group coordinator and logged by it
	 */
	public void request(String reason) {
		request(RebalanceCause.APPLICATION, reason);
	}

	/**
	 * Ask for a rebalance; returns at once.
	 * @param cause why, as the meters count it
	 * @param reason why, sent to the group coordinator and logged by it
	 */
	void request(RebalanceCause cause, String reason) {
		this.requested.incrementAndGet();
		this.own.set(new Request(reason, cause, true, Integer.MAX_VALUE));
	}

	/**
	 * Space this instance's own rounds: the first main consumer made sets it from the group's heartbeat interval.
	 * @param spacing the least time between two rebalances this instance enforces for its own reasons
	 */
	void spaceOwnRounds(Duration spacing) {
		this.ownRoundSpacing = spacing.toNanos();
	}

	/**
	 * How many rebalances this instance enforced or joined by itself for one cause.
	 * @param cause the cause
	 * @return the number of rounds
	 */
	public long rounds(RebalanceCause cause) {
		return this.rounds.get(cause).get();
	}

	/**
	 * Rejoin because another member asked the group to; returns at once. Not announced again; a request of this
	 * instance's own that waits rides along, with its announcement. Dropped when a main consumer of this instance
	 * completes a later generation before one takes it: the rebalance asked for happened meanwhile, and this member
	 * was in it (a consumer busy with its new tasks polls late), so joining again would only start another round,
	 * which the others would join at their next heartbeat. Completing the very generation the asker had completed
	 * does not answer it: the asker is in the round after that one. Dropped too when this member is joining a round
	 * after the asker's generation already (the asker's announcement is read late, the member joined for another
	 * reason): every member is in every round, so the round in flight is the one asked for, and joining again would
	 * start the next one without the asker, which it would join only at its next heartbeat.
	 * @param reason why, sent to the group coordinator and logged by it
	 * @param generation the last generation the asking member had completed
	 */
	public void follow(String reason, int generation) {
		this.others.accumulateAndGet(new Request(reason, RebalanceCause.FOLLOW, false, generation),
				(waiting, next) -> (waiting != null && waiting.generation() > next.generation()) ? waiting : next);
	}

	/**
	 * Whether a request waits for a consumer to take it.
	 * @return true while no consumer has polled since the last request
	 */
	public boolean isPending() {
		return this.own.get() != null || this.others.get() != null;
	}

	/**
	 * How many requests were made.
	 * @return the number of calls to {@link #request(String)}
	 */
	public long requestedCount() {
		return this.requested.get();
	}

	/**
	 * How many rebalances this instance enforced for its own reasons (coalesced requests count once).
	 * @return the number of {@code enforceRebalance} calls made on a consumer for {@link #request}
	 */
	public long enforcedCount() {
		return this.enforced.get();
	}

	/**
	 * How many times this instance rejoined because another member asked.
	 * @return the number of {@code enforceRebalance} calls made on a consumer for {@link #follow}
	 */
	public long followedCount() {
		return this.followed.get();
	}

	/**
	 * Be told of every rebalance this instance enforces for its own reasons, on the stream thread that enforced it
	 * (return fast, never throw).
	 * @param listener gets the reason
	 */
	public void addEnforcementListener(Consumer<String> listener) {
		this.enforcementListeners.add(listener);
	}

	/**
	 * The newest group generation a main consumer of this instance has joined.
	 * @return the generation, -1 before the first
	 */
	public int observedGeneration() {
		return this.generation.get();
	}

	/**
	 * Be told of every rebalance a main consumer of this instance completes, on that consumer's stream thread, once
	 * Kafka Streams took its assignment (tasks made, standbys promoted) and before it goes on (return fast, never
	 * throw).
	 * @param listener gets the generation completed
	 */
	public void addGenerationListener(IntConsumer listener) {
		this.generationListeners.add(listener);
	}

	void generationCompleted(int generationId) {
		this.generation.accumulateAndGet(generationId, Math::max);
		if (this.joiningSince != 0) {
			this.joiningSince = 0;
			this.own.set(null);
		}
		for (IntConsumer listener : this.generationListeners) {
			listener.accept(generationId);
		}
	}

	Request take() {
		Request round = this.others.getAndSet(null);
		if (round != null && (round.generation() < this.generation.get()
				|| (joining() && round.generation() <= this.joinedAfter))) {
			round = null;
		}
		if (round != null) {
			// another member's round is joined at once, an own request of this instance riding along, announced
			Request riding = this.own.getAndSet(null);
			return (riding != null) ? new Request(round.reason() + "; " + riding.reason(), RebalanceCause.FOLLOW, true,
					round.generation()) : round;
		}
		if (this.own.get() == null || joining() || tooSoon()) {
			return null;
		}
		return this.own.getAndSet(null);
	}

	/**
	 * Whether a rebalance this instance joined is in flight; one that has not completed within {@link #MAX_JOIN}
	 * (the consumer closed meanwhile, say) no longer holds requests back.
	 */
	private boolean joining() {
		long since = this.joiningSince;
		return since != 0 && this.nanos.getAsLong() - since < MAX_JOIN.toNanos();
	}

	private boolean tooSoon() {
		long last = this.lastOwnRound;
		return last != 0 && this.nanos.getAsLong() - last < this.ownRoundSpacing;
	}

	/**
	 * A main consumer joins the group by itself: after a rebalance that revoked some of its partitions (under the
	 * cooperative protocol they reach their new owners only in the next round), as a new member, or because Kafka
	 * Streams rejoins. Unless it joins a round the instance began already, that begins one, announced like a request
	 * of this instance's own, so that the instance's other consumers and the other members join it at once.
	 * @param reason why, for the others' logs
	 * @return the round the consumer joins
	 */
	InstanceRound joiningByItself(String reason) {
		int after = this.generation.get();
		this.joinedAfter = after;
		this.joiningSince = this.nanos.getAsLong() | 1;
		InstanceRound current = this.round.get();
		if (current.sequence() > 0 && current.after() >= after) {
			return current;
		}
		InstanceRound begun = begin(reason);
		this.rounds.get(RebalanceCause.JOIN).incrementAndGet();
		for (Consumer<String> listener : this.enforcementListeners) {
			listener.accept(reason);
		}
		return begun;
	}

	/**
	 * A consumer enforced a request it took.
	 * @param request the request
	 * @return the round it begins, which the instance's other consumers join
	 */
	InstanceRound enforced(Request request) {
		long now = this.nanos.getAsLong();
		this.joinedAfter = this.generation.get();
		this.joiningSince = now | 1;
		InstanceRound begun = begin(request.reason());
		this.rounds.get(request.cause()).incrementAndGet();
		if (request.cause() == RebalanceCause.FOLLOW) {
			this.followed.incrementAndGet();
		}
		if (request.announce()) {
			this.lastOwnRound = now | 1;
			this.enforced.incrementAndGet();
			for (Consumer<String> listener : this.enforcementListeners) {
				listener.accept(request.reason());
			}
		}
		return begun;
	}

	/**
	 * The latest round this instance began, which each of its main consumers joins.
	 * @return the round, {@link InstanceRound#NONE} before the first
	 */
	InstanceRound round() {
		return this.round.get();
	}

	private InstanceRound begin(String reason) {
		int after = this.generation.get();
		return this.round.updateAndGet((last) -> new InstanceRound(last.sequence() + 1, reason, after));
	}

	/**
	 * A rebalance asked for and not yet enforced.
	 *
	 * @param reason why
	 * @param cause why, as the meters count it: {@link RebalanceCause#FOLLOW} for another member's round, even with an
	 * own request riding along
	 * @param announce whether the other members are to be asked to rejoin too
	 * @param generation for a request followed, the last generation its asker had completed
	 */
	record Request(String reason, RebalanceCause cause, boolean announce, int generation) {
	}

}
