package io.github.incrementalrebalance.planner;

import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ProcessId;

/**
 * One Kafka Streams instance in the group, as the leader sees it at the start of a rebalance.
 *
 * @param processId Kafka's id of the instance
 * @param instanceId the operator's name of the instance (pod name), unique among live members
 * @param incarnation which start of the instance this is
 * @param capacity its stream threads
 * @param mode the rebalancing mode it runs
 * @param startedAt when it started; the newest member is preferred as learner target on ties
 * @param previousActive tasks it ran (or restored) as active before this rebalance
 * @param previousStandby tasks it holds state of without running them: standbys, learners and leftover task
 * directories
 * @param lags per changelogged task: {@link #RUNNING} where it runs the task, {@link #UNKNOWN} when the leader could
 * not read end offsets this round, else how many changelog records it misses. Read, not copied: Kafka hands every
 * member a lag for every stateful task, read-only and built for the round, and a copy would cost tasks times members
 * each round where the plan reads the lags of a few members per task
 * @param rackTags its values of the client tags named by {@code rack.aware.assignment.tags}: standbys of a task go
 * to members whose values differ from its owner's first
 * @param rack its {@code client.rack}, when every member of the group has one and rack-aware assignment is on
 * @param clientTags all its client tags ({@code client.tag.*}), for placement policies
 */
public record GroupMember(ProcessId processId, String instanceId, String incarnation, int capacity,
		RebalancingMode mode, Instant startedAt, Set<TaskId> previousActive, Set<TaskId> previousStandby,
		Map<TaskId, Long> lags, Map<String, String> rackTags, Optional<String> rack, Map<String, String> clientTags) {

	/** Kafka's lag of a task running active on the member. */
	public static final long RUNNING = -2;

	/** Kafka's lag when end offsets are unknown this round. */
	public static final long UNKNOWN = -3;

	public GroupMember {
		Objects.requireNonNull(processId, "processId");
		Objects.requireNonNull(instanceId, "instanceId");
		Objects.requireNonNull(incarnation, "incarnation");
		Objects.requireNonNull(mode, "mode");
		Objects.requireNonNull(startedAt, "startedAt");
		if (capacity < 1) {
			throw new IllegalArgumentException("capacity of " + instanceId + " must be >= 1, was " + capacity);
		}
		previousActive = Set.copyOf(previousActive);
		previousStandby = Set.copyOf(previousStandby);
		lags = Collections.unmodifiableMap(lags);
		rackTags = Map.copyOf(rackTags);
		Objects.requireNonNull(rack, "rack");
		clientTags = Map.copyOf(clientTags);
	}

	/**
	 * The member's lag on a task.
	 * @param task a changelogged task
	 * @return the lag, {@link #RUNNING}, {@link #UNKNOWN}, or {@link Long#MAX_VALUE} when no lag was reported
	 */
	public long lag(TaskId task) {
		return this.lags.getOrDefault(task, Long.MAX_VALUE);
	}

	/**
	 * Whether the leader could not read end offsets this round. Kafka then reports every task the member does not run
	 * as {@link #UNKNOWN}, so the first of those tells, without reading a lag per task.
	 * @return true when the lags are unknown
	 */
	public boolean lagsUnknown() {
		for (long lag : this.lags.values()) {
			if (lag != RUNNING) {
				return lag == UNKNOWN;
			}
		}
		return false;
	}

	/**
	 * Whether the member holds some state of a task without running it.
	 * @param task the task
	 * @return true for a standby, a learner or a leftover directory
	 */
	public boolean holds(TaskId task) {
		return this.previousStandby.contains(task);
	}

}
