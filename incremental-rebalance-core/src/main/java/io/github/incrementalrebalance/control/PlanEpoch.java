package io.github.incrementalrebalance.control;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code plan-epoch}: the last assignment the leader published: which {@link PlanRecord}s belong together, who led
 * and why it decided what it did.
 * <p>
 * A plan is identified by the consumer group generation it was adopted in, never by a clock: a leader publishes it once
 * its own consumer completed that generation, so a write of a former leader that arrives late (a producer retrying
 * through a broker fault) carries a lower generation and is recognised as stale (see {@link #supersedes}).
 *
 * @param generation the group generation the plan was adopted in
 * @param replaces the generation of the plan the leader read when it published, {@link #UNKNOWN_GENERATION} when it
 * had read none: how a plan after a group reset (generations start again at 1) is told from a stale one
 * @param leader the leader's instance id
 * @param at when the leader published it, on its clock: shown, never compared
 * @param summary the decision log line
 * @param duplicateInstanceIds instance ids two or more live members use
 * @param application the application ({@code application.id}, the group) whose plan this is: a control topic two
 * applications share is told by it; empty when the writer did not say (a version before it did)
 */
public record PlanEpoch(int generation, int replaces, String leader, Instant at, String summary,
		List<String> duplicateInstanceIds, String application) implements ControlRecord {

	public static final String KEY = "plan-epoch";

	/** No generation: a leader that had read no plan, a member that has read none yet. */
	public static final int UNKNOWN_GENERATION = -1;

	public PlanEpoch {
		Objects.requireNonNull(leader, "leader");
		Objects.requireNonNull(at, "at");
		Objects.requireNonNull(summary, "summary");
		duplicateInstanceIds = List.copyOf(duplicateInstanceIds);
		Objects.requireNonNull(application, "application");
	}

	/**
	 * A plan that does not say whose it is.
	 */
	public PlanEpoch(int generation, int replaces, String leader, Instant at, String summary,
			List<String> duplicateInstanceIds) {
		this(generation, replaces, leader, at, summary, duplicateInstanceIds, "");
	}

	/**
	 * Whether this plan is another application's than the one named.
	 * @param ours the application reading it, empty when it does not know its own
	 * @return true when both are known and differ
	 */
	boolean ofAnotherApplicationThan(Optional<String> ours) {
		return !this.application.isEmpty() && ours.isPresent() && !ours.get().equals(this.application);
	}

	/**
	 * Whether this plan replaces the one a member holds: it was adopted in a later generation (or the same, published
	 * again), or its leader had read the held plan and still published an earlier generation, which only a group
	 * that was deleted and started again can do. A plan of a former leader that arrives late is neither.
	 * @param held the plan the member holds
	 * @return true when this plan is the newer one
	 */
	public boolean supersedes(PlanEpoch held) {
		return this.generation >= held.generation || this.replaces == held.generation;
	}

	@Override
	public String key() {
		return KEY;
	}

}
