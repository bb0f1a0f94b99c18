package io.github.incrementalrebalance.control;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Supplier;

import io.github.incrementalrebalance.assignor.PlanListener;
import io.github.incrementalrebalance.assignor.PreviousPlan;
import io.github.incrementalrebalance.planner.MemberPlan;
import io.github.incrementalrebalance.planner.Plan;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.AssignmentError;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes each plan this instance computes as leader to the control topic: one {@code plan/<id>/<incarnation>} per
 * member start, then the {@code plan-epoch}, with the housekeeping's tombstones ({@link ControlHousekeeping}). A plan
 * is published once the leader's consumer completed the generation it was computed for ({@link #generationCompleted}),
 * so that it carries that generation: a plan whose rebalance failed is never published, and a late write of a former
 * leader is recognised by its lower generation. Both calls run on the leader's stream thread, so it only hands the
 * records to the writer's thread. The plan of the last completed generation goes to the next assignment through
 * {@link #previousPlan()}.
 * <p>
 * A leader whose round fails after it computed the plan (its SyncGroup came too late: a slow link, a long pause, the
 * coordinator removed it) joins again, perhaps as a follower of another leader; the next generation its consumer
 * completes is then not the one its plan was computed for, and publishing it under that generation would overwrite the
 * real leader's plan. So a plan is published only when the consumer has not joined the group again since the plan was
 * computed: both calls read how often the calling thread's consumer joined (its {@code join-total} metric).
 */
public final class PlanPublisher implements PlanListener {

	private static final Logger logger = LoggerFactory.getLogger(PlanPublisher.class);

	/**
	 * The most characters of the decision the epoch record carries: every member reads that record, and a group of
	 * tens of thousands of tasks would otherwise push it towards the topic's largest message.
	 */
	static final int SUMMARY_LIMIT = 4_000;

	private final ControlTopicWriter writer;

	private final ControlTopicReader reader;

	private final ControlHousekeeping housekeeping;

	private final LastPlan lastPlan;

	private final DepartedLeaves departedLeaves;

	/** The plan each stream thread computed as leader, until its consumer completes the generation. */
	private final ThreadLocal<Computed> computed = new ThreadLocal<>();

	/** How often the consumer of the calling stream thread joined the group, when known. */
	private final Supplier<OptionalLong> joinsOfCallingThread;

	private final String leader;

	private final Clock clock;

	/**
	 * @param writer the control topic writer
	 * @param reader the control topic reader, for the leave records
	 * @param leader this instance's id, named as leader in the epoch
	 * @param goneFor how long a leave record is kept while the member start it names is absent from the group
	 * @param clock the clock of the epoch's time and of absences
	 * @param joinsOfCallingThread how often the consumer of the calling stream thread joined the group, empty when
	 * unknown (a plan is then published at the next generation completed, whichever it is)
	 */
	public PlanPublisher(ControlTopicWriter writer, ControlTopicReader reader, String leader, Duration goneFor,
			Clock clock, Supplier<OptionalLong> joinsOfCallingThread) {
		this.writer = writer;
		this.reader = reader;
		this.housekeeping = new ControlHousekeeping(reader, goneFor);
		this.lastPlan = new LastPlan(reader);
		this.departedLeaves = new DepartedLeaves(reader, writer, writer.acknowledgementWait(), clock);
		this.leader = leader;
		this.clock = clock;
		this.joinsOfCallingThread = joinsOfCallingThread;
	}

	/**
	 * The plan of the generation this member completed last, for the next assignment.
	 * @return the previous plan
	 */
	public PreviousPlan previousPlan() {
		return this.lastPlan;
	}

	/**
	 * Record how the leaves of members that left the group mid-leave without a word ended, once they had the time to
	 * record it themselves ({@link DepartedLeaves}); on the member's check thread.
	 */
	public void checkDepartedLeaves() {
		this.departedLeaves.check();
	}

	@Override
	public void onPlan(Plan plan, AssignmentError error) {
		if (error != AssignmentError.NONE) {
			this.computed.remove();
			return;
		}
		this.computed.set(new Computed(plan, this.joinsOfCallingThread.get()));
	}

	/**
	 * A round without a learner plan: a plan this thread computed for an earlier round whose generation never
	 * completed must not be published under this round's generation.
	 */
	@Override
	public void onNoPlan() {
		this.computed.remove();
	}

	/**
	 * The consumer of the calling stream thread completed a generation: publish the plan this thread computed for it,
	 * if it led.
	 * @param generation the group generation completed
	 */
	public void generationCompleted(int generation) {
		this.lastPlan.completed(generation);
		Computed computedHere = this.computed.get();
		if (computedHere == null) {
			return;
		}
		this.computed.remove();
		OptionalLong joins = this.joinsOfCallingThread.get();
		if (computedHere.joins().isPresent() && joins.isPresent()
				&& joins.getAsLong() != computedHere.joins().getAsLong()) {
			logger.info("Not publishing the plan {} computed as leader of a round that did not complete: its consumer "
					+ "joined the group again since, and generation {} is another leader's", this.leader, generation);
			return;
		}
		Plan plan = computedHere.plan();
		this.departedLeaves.planned(this.reader.plans().stream().map(PlanRecord::plan).toList(),
				plan.members().values());
		this.lastPlan.published(generation, List.copyOf(plan.members().values()));
		Instant at = this.clock.instant();
		List<ControlRecord> records = new ArrayList<>();
		for (MemberPlan member : plan.members().values()) {
			records.add(new PlanRecord(member, generation));
		}
		int replaces = this.reader.planEpoch().map(PlanEpoch::generation).orElse(PlanEpoch.UNKNOWN_GENERATION);
		PlanEpoch epoch = new PlanEpoch(generation, replaces, this.leader, at, plan.summary(at, SUMMARY_LIMIT),
				List.copyOf(plan.duplicateInstanceIds()), this.reader.application().orElse(""));
		records.add(epoch);
		this.writer.publishPlan(records, this.housekeeping.tombstones(plan, at),
				() -> this.reader.planEpoch().filter((held) -> !epoch.supersedes(held)).isPresent());
	}

	/**
	 * A plan, and how often the consumer that computed it had joined the group then.
	 */
	private record Computed(Plan plan, OptionalLong joins) {

	}

}
