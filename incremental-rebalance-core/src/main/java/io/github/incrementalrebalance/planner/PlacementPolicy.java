package io.github.incrementalrebalance.planner;

/**
 * Where a task may run, what running it there costs and how much load it is: the planner's pluggable part, named by
 * class with {@code incremental.rebalance.placement.policy.class} (Spring:
 * {@code incremental-rebalance.placement.policy}). The default, {@link RackAwarePlacementPolicy}, honours Kafka's
 * {@code rack.aware.assignment.strategy}; extend it to keep that and add rules of your own.
 * <p>
 * The planner asks the policy about active tasks and learners (a learner is where its task will run) and keeps
 * standbys off members a task may not run on. Among the members a task may run on, it balances the load (the tasks'
 * weight per thread) first and then places every task where the sum of the costs is lowest, a move counting as
 * {@code rack.aware.assignment.non_overlap_cost} (as in Kafka's rack-aware assignment): a running task moves to a
 * cheaper member only through a learner, like any other move. A task no member may run on is placed anyway (every task
 * must run somewhere), and the plan says so.
 * <p>
 * Kafka makes a policy per rebalance, on the group leader, with a public no-argument constructor; one that implements
 * {@link org.apache.kafka.common.Configurable} gets the Kafka Streams config first, as Kafka's own pluggable classes
 * do. The planner calls it many times per task: keep it fast, free of I/O, and decided by its arguments alone, since
 * any member may lead the next rebalance and must plan the same.
 */
public interface PlacementPolicy {

	/**
	 * Whether a member may run a task, or learn it to run it later.
	 * @param task the task
	 * @param member the member
	 * @return false to keep the task, its learners and its standbys off the member
	 */
	default boolean mayRun(GroupTask task, GroupMember member) {
		return true;
	}

	/**
	 * The cost of running a task on a member, for example the cross-rack traffic it causes.
	 * @param task the task
	 * @param member the member
	 * @return a cost, zero or more; zero everywhere makes placement by load alone
	 */
	default long cost(GroupTask task, GroupMember member) {
		return 0;
	}

	/**
	 * How much load a task is: the planner balances the weight of the tasks per stream thread, and the balancing
	 * factor applies to it. By default the records in the task's changelogs when they are read
	 * ({@code incremental.rebalance.task.weight=state-size}), at least one so that an empty store still counts, and
	 * one per task otherwise. Stateful and stateless tasks are balanced apart, so only weights within each kind are
	 * compared.
	 * @param task the task
	 * @return a weight, one or more
	 */
	default long weight(GroupTask task) {
		return Math.max(1, task.changelogRecords().orElse(1));
	}

}
