package io.github.incrementalrebalance.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.github.incrementalrebalance.control.PlanRecord;
import io.github.incrementalrebalance.identity.MemberIdentity;
import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.planner.RebalancingMode;
import io.github.incrementalrebalance.planner.StartId;
import org.apache.kafka.streams.GroupProtocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this instance holds its share with its state: every member start has a plan, and the learners the plans
 * placed on it since it started have been promoted or dropped (the plan shows it learning nothing). A member whose
 * Kafka Streams the application has not started (auto-startup=false) holds nothing back; its bound counts from when
 * its Kafka Streams are first seen started. Once warm, a start
 * stays warm (learners placed on it later, for another member's drain, are no reason to refuse traffic). A start that
 * is not warm within the bound counts as warm anyway, and says so (WARN): its learners are still restoring, or no
 * plan names it (the control topic cannot be read, the leader runs Kafka's assignor). A member in mode upgrading gets
 * no learners and is warm at once; so is a member under the streams protocol, with a WARN (the broker assigns it tasks
 * as it joins, with no learner). Reads only what the control topic's reader holds: any thread, no I/O.
 */
class WarmReadiness {

	private static final Logger logger = LoggerFactory.getLogger(WarmReadiness.class);

	private final Supplier<List<MemberRuntime>> runtimes;

	private final Duration bound;

	private final Clock clock;

	/** The member starts found warm, or past the bound. */
	private final Set<StartId> warm = ConcurrentHashMap.newKeySet();

	/** When each member start was first seen with its Kafka Streams attached: the bound counts from then. */
	private final Map<StartId, Instant> runningSince = new ConcurrentHashMap<>();

	/**
	 * @param runtimes this instance's members
	 * @param bound how long after its start a member counts as warm anyway
	 * @param clock the clock the bound is measured on
	 */
	WarmReadiness(Supplier<List<MemberRuntime>> runtimes, Duration bound, Clock clock) {
		this.runtimes = runtimes;
		this.bound = bound;
		this.clock = clock;
	}

	/**
	 * @return whether every member start of this instance is warm
	 */
	boolean warm() {
		return this.runtimes.get().stream().allMatch(this::warm);
	}

	private boolean warm(MemberRuntime runtime) {
		if (runtime.streamsState().isEmpty()) {
			// the application starts its Kafka Streams itself, later (auto-startup=false): nothing to warm yet
			return true;
		}
		MemberIdentity identity = runtime.identity();
		StartId start = new StartId(identity.instanceId(), identity.incarnation());
		if (this.warm.contains(start)) {
			return true;
		}
		Instant runningSince = this.runningSince.computeIfAbsent(start, (first) -> this.clock.instant());
		if (runtime.groupProtocol() == GroupProtocol.STREAMS) {
			this.warm.add(start);
			logger.warn("{} accepts traffic at once: under group.protocol=streams the broker gives a new instance its "
					+ "tasks as it joins and no learner warms them first, so incremental-rebalance.readiness.warm "
					+ "cannot hold it back (it needs the classic protocol)", identity.instanceId());
			return true;
		}
		boolean learnsNothing = runtime.controlView()
			.plan(identity.instanceId(), identity.incarnation())
			.map(PlanRecord::plan)
			.filter((plan) -> plan.learning().isEmpty())
			.isPresent();
		if (learnsNothing || identity.mode() == RebalancingMode.UPGRADING) {
			this.warm.add(start);
			logger.info("{} is warm: every learner placed on it since it started was promoted or dropped; it accepts "
					+ "traffic", identity.instanceId());
			return true;
		}
		Instant now = this.clock.instant();
		if (!now.isBefore(runningSince.plus(this.bound))) {
			this.warm.add(start);
			logger.warn("{} accepts traffic without being warm, {} after it started (incremental-rebalance."
					+ "readiness.timeout): {}", identity.instanceId(), this.bound, why(runtime));
			return true;
		}
		return false;
	}

	private static String why(MemberRuntime runtime) {
		MemberIdentity identity = runtime.identity();
		return runtime.controlView()
			.plan(identity.instanceId(), identity.incarnation())
			.map((plan) -> "its learners of " + plan.plan().learning().keySet() + " are still restoring")
			.orElseGet(() -> "no plan names it ("
					+ runtime.controlTopicProblem().orElse("the leader may run Kafka's assignor") + ")");
	}

}
