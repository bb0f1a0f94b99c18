package io.github.incrementalrebalance.control;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.github.incrementalrebalance.assignor.PreviousPlan;
import io.github.incrementalrebalance.planner.MemberPlan;

/**
 * The plan of the generation this member completed last, for the next assignment: the plan it published itself (the
 * follow-up rebalance of a move comes sooner than its records come back from the topic), else the one read from the
 * topic, and none when neither is of that generation. Updated and read on stream threads.
 */
final class LastPlan implements PreviousPlan {

	private final ControlTopicReader reader;

	/** The last generation a consumer of this member completed. */
	private final AtomicInteger completed = new AtomicInteger(PlanEpoch.UNKNOWN_GENERATION);

	/** The last plan this member published, with its generation. */
	private final AtomicReference<Published> published = new AtomicReference<>();

	LastPlan(ControlTopicReader reader) {
		this.reader = reader;
	}

	void completed(int generation) {
		this.completed.accumulateAndGet(generation, Math::max);
	}

	void published(int generation, List<MemberPlan> members) {
		this.published.set(new Published(generation, List.copyOf(members)));
	}

	@Override
	public List<MemberPlan> members() {
		int generation = this.completed.get();
		Published own = this.published.get();
		if (own != null && own.generation() == generation) {
			return own.members();
		}
		if (this.reader.planEpoch().map(PlanEpoch::generation).filter((read) -> read == generation).isPresent()) {
			return this.reader.plans().stream().map(PlanRecord::plan).toList();
		}
		return List.of();
	}

	private record Published(int generation, List<MemberPlan> members) {
	}

}
