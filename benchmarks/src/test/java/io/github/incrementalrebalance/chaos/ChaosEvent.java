package io.github.incrementalrebalance.chaos;

import java.util.Locale;

/**
 * The kinds of scale events the chaos run applies. Each names what an operator, a deploy or a fault does to the group;
 * the network faults come from a proxy between the members and the broker.
 */
enum ChaosEvent {

	/** A new instance joins with no state. */
	START(0),

	/** An instance is asked to leave without a deadline (eager or conservative, as the instance is configured). */
	LEAVE(1),

	/** An instance is asked to leave with a deadline its learners meet. */
	LEAVE_WITH_DEADLINE(1),

	/** An instance is asked to leave with a deadline too short for its learners: it is forced. */
	LEAVE_WITH_SHORT_DEADLINE(1),

	/** An instance is asked to leave, then the leave is cancelled while its learners warm up. */
	LEAVE_THEN_CANCEL(1),

	/** New instances start, then as many old ones are asked to leave at once. */
	HOST_SWAP(0),

	/** An instance shuts down gracefully (SIGTERM): a plain leave of the group, without learners. */
	CLOSE(1),

	/**
	 * An instance shuts down gracefully and starts again at once under its instance id with its state directory, as a
	 * pod restarted in place; then a leave is written for its earlier start (a command line that read the plan before
	 * the restart), which must change nothing.
	 */
	RESTART(1),

	/** An instance is killed ({@code kill -9}). */
	KILL(1),

	/** The current leader is killed ({@code kill -9}). */
	KILL_LEADER(1),

	/** An instance is asked to leave and, while its learners warm up, the leader (or another instance) is killed. */
	KILL_DURING_DRAIN(2),

	/** An instance that is already leaving is asked to leave again. */
	LEAVE_TWICE(1),

	/** A leave is written for an instance that is gone (its last start). */
	LEAVE_GONE(0),

	/**
	 * An instance is asked to leave and, while its learners warm up, another instance is cut off from the broker for
	 * longer than its session timeout: the group goes on without it until the link heals.
	 */
	CUT_DURING_DRAIN(1, true),

	/** The leader's link is slowed by a second each way as another instance is asked to leave. */
	SLOW_LEADER_DURING_LEAVE(1, true),

	/**
	 * An instance is asked to leave and, while its learners warm up, every control-topic client of the group is cut
	 * for 20 s: the members cannot tell each other about the leave nor the learners' progress.
	 */
	CONTROL_CUT_DURING_DRAIN(1, true),

	/**
	 * An instance is asked to leave and, while its learners warm up, another instance is cut off from the broker for
	 * half its session timeout: a flap the group rides out without a rebalance.
	 */
	SHORT_CUT_DURING_DRAIN(1, true),

	/**
	 * Another instance's stream thread is stuck 15 s in a slow call (a remote lookup that hangs, a long garbage
	 * collection) as an instance is asked to leave: the rebalance that answers the leave waits for it.
	 */
	SLOW_CALL_DURING_LEAVE(1, true),

	/**
	 * While every control-topic client of the group is cut, an instance is asked to leave and the leave is cancelled:
	 * once the link heals the members read both, and the instance stays.
	 */
	LEAVE_AND_CANCEL_DURING_CONTROL_CUT(1, true),

	/**
	 * An instance is asked to leave and, while its learners warm up, the broker that leads the control topic's
	 * partition stops for 20 s and starts again (an upgrade, a host that reboots): partitions' leadership moves, and
	 * with it the group's coordinator when that broker held it. Only on the three-broker cluster.
	 */
	BROKER_BOUNCE_DURING_DRAIN(1, false, true),

	/**
	 * As {@link #BROKER_BOUNCE_DURING_DRAIN}, the broker stopped being the group's coordinator: every member finds the
	 * group again on another broker, which loads it from the group's log, mid-drain.
	 */
	COORDINATOR_BOUNCE_DURING_DRAIN(1, false, true);

	/** How many instances the event removes at most: the run keeps at least two. */
	private final int removes;

	/**
	 * Whether it is a fault between the members and the broker or inside a member, applied only by a run with faults
	 * (whose members' transactions outlast the rebalances faults stretch).
	 */
	private final boolean fault;

	/** Whether it stops a broker, applied only by a run on three brokers. */
	private final boolean cluster;

	ChaosEvent(int removes) {
		this(removes, false);
	}

	ChaosEvent(int removes, boolean fault) {
		this(removes, fault, false);
	}

	ChaosEvent(int removes, boolean fault, boolean cluster) {
		this.removes = removes;
		this.fault = fault;
		this.cluster = cluster;
	}

	int removes() {
		return this.removes;
	}

	boolean fault() {
		return this.fault;
	}

	boolean cluster() {
		return this.cluster;
	}

	String word() {
		return name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

}
