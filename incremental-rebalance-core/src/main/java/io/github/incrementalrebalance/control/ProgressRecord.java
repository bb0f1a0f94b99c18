package io.github.incrementalrebalance.control;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import io.github.incrementalrebalance.planner.StartId;

/**
 * {@code progress/<instance-id>/<incarnation>}: how far the learners of one start of a member are, written by the
 * member itself every progress interval while the plan gives it learners, and deleted (a tombstone) when it has none
 * left. Each member knows only its own lags; these records let any instance show the whole group's progress. Keyed
 * like the plan, so a compacted topic holds one per member start.
 *
 * @param instanceId the member
 * @param incarnation its start
 * @param at when the member measured, on its clock: the ETAs count from here
 * @param learners its learners, by task
 */
public record ProgressRecord(String instanceId, String incarnation, Instant at, List<LearnerProgress> learners)
		implements ControlRecord {

	static final String KEY_PREFIX = "progress/";

	public ProgressRecord {
		Objects.requireNonNull(instanceId, "instanceId");
		Objects.requireNonNull(incarnation, "incarnation");
		Objects.requireNonNull(at, "at");
		learners = List.copyOf(learners);
	}

	/**
	 * The key of the progress of one start of a member.
	 * @param instanceId the member
	 * @param incarnation its start
	 * @return {@code progress/<instance-id>/<incarnation>}
	 */
	public static String keyOf(String instanceId, String incarnation) {
		return KEY_PREFIX + new StartId(instanceId, incarnation);
	}

	@Override
	public String key() {
		return keyOf(this.instanceId, this.incarnation);
	}

	/**
	 * One learner's progress.
	 *
	 * @param task the task it learns
	 * @param lag records its stores are behind their changelogs
	 * @param recordsPerSecond how fast the lag fell over the last samples (net of what the active task added); 0
	 * while unknown or not falling
	 * @param ready whether the lag is low enough for the task to move to it
	 * @param eta how long until it is ready at that rate, from {@link ProgressRecord#at()}; for a learner that waits
	 * while its member restores another one, how long all of the member's learners take at the member's rate; zero
	 * when ready, empty while no learner of the member restores
	 */
	public record LearnerProgress(String task, long lag, double recordsPerSecond, boolean ready,
			Optional<Duration> eta) {

		public LearnerProgress {
			Objects.requireNonNull(task, "task");
			Objects.requireNonNull(eta, "eta");
		}

	}

}
