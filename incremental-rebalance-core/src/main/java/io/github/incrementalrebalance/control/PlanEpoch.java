package io.github.incrementalrebalance.control;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * {@code plan-epoch}: the last assignment the leader published: which {@link PlanRecord}s belong together, who led
 * and why it decided what it did.
 *
 * @param epoch the assignment's time on the leader's clock, in ms
 * @param leader the leader's instance id
 * @param at the same time, as an instant
 * @param summary the decision log line
 * @param duplicateInstanceIds instance ids two or more live members use
 */
public record PlanEpoch(long epoch, String leader, Instant at, String summary, List<String> duplicateInstanceIds)
		implements ControlRecord {

	public static final String KEY = "plan-epoch";

	public PlanEpoch {
		Objects.requireNonNull(leader, "leader");
		Objects.requireNonNull(at, "at");
		Objects.requireNonNull(summary, "summary");
		duplicateInstanceIds = List.copyOf(duplicateInstanceIds);
	}

	@Override
	public String key() {
		return KEY;
	}

}
