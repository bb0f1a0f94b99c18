package io.github.incrementalrebalance.control;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import io.github.incrementalrebalance.planner.MemberPlan;
import io.github.incrementalrebalance.planner.Plan;
import io.github.incrementalrebalance.assignor.PlanListener;
import io.github.incrementalrebalance.assignor.PreviousPlan;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.AssignmentError;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes each plan this instance computes as leader to the control topic: one {@code plan/<id>/<incarnation>} per
 * member start, then the {@code plan-epoch}. A plan is published once the leader's consumer completed the generation
 * it was computed for ({@link #generationCompleted}), so that it carries that generation: a plan whose rebalance
 * failed is never published, and a late write of a former leader is recognised by its lower generation. Both calls
 * run on the leader's stream thread, so it only hands the records to the writer's thread.
 * <p>
 * It also tells the next assignment the plan of the generation this member completed last ({@link PreviousPlan}):
 * the plan it published itself (the follow-up rebalance of a move comes sooner than its records come back from the
 * topic), else the one read from the topic, and none when neither is of that generation.
 */
public final class PlanPublisher implements PlanListener, PreviousPlan {

	private static final Logger logger = LoggerFactory.getLogger(PlanPublisher.class);

	private final ControlTopicWriter writer;

	private final ControlTopicReader reader;

	private final Set<String> warnedStale = ConcurrentHashMap.newKeySet();

	private final Map<String, Instant> absentSince = new ConcurrentHashMap<>();

	/** The plan each stream thread computed as leader, until its consumer completes the generation. */
	private final ThreadLocal<Plan> computed = new ThreadLocal<>();

	/** The last generation a consumer of this member completed. */
	private final AtomicInteger completed = new AtomicInteger(PlanEpoch.UNKNOWN_GENERATION);

	/** The last plan this member published, with its generation. */
	private final AtomicReference<Published> published = new AtomicReference<>();

	private final String leader;

	private final Duration goneFor;

	private final Clock clock;

	/**
	 * @param writer the control topic writer
	 * @param reader the control topic reader, for the leave records
	 * @param leader this instance's id, named as leader in the epoch
	 * @param goneFor how long a leave record is kept while the member start it names is absent from the group
	 * @param clock the clock of the epoch's time and of absences
	 */
	public PlanPublisher(ControlTopicWriter writer, ControlTopicReader reader, String leader, Duration goneFor,
			Clock clock) {
		this.writer = writer;
		this.reader = reader;
		this.leader = leader;
		this.goneFor = goneFor;
		this.clock = clock;
	}

	@Override
	public void onPlan(Plan plan, AssignmentError error) {
		if (error != AssignmentError.NONE) {
			this.computed.remove();
			return;
		}
		this.computed.set(plan);
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
		this.completed.accumulateAndGet(generation, Math::max);
		Plan plan = this.computed.get();
		if (plan == null) {
			return;
		}
		this.computed.remove();
		this.published.set(new Published(generation, List.copyOf(plan.members().values())));
		Instant at = this.clock.instant();
		List<ControlRecord> records = new ArrayList<>();
		Set<String> keys = new HashSet<>();
		Set<String> progressKeys = new HashSet<>();
		for (MemberPlan member : plan.members().values()) {
			PlanRecord record = new PlanRecord(member, generation);
			records.add(record);
			keys.add(record.key());
			progressKeys.add(ProgressRecord.keyOf(member.instanceId(), member.incarnation()));
		}
		int replaces = this.reader.planEpoch().map(PlanEpoch::generation).orElse(PlanEpoch.UNKNOWN_GENERATION);
		records.add(new PlanEpoch(generation, replaces, this.leader, at, plan.explain(at),
				List.copyOf(plan.duplicateInstanceIds())));
		warnOfStaleLeaves(plan);
		List<String> tombstones = new ArrayList<>(leavesOfLongGoneMembers(plan, at));
		// plans and progress of member starts that are no longer in the group, rejoin requests of instances no longer
		// in it
		this.reader.planKeys().stream().filter((key) -> !keys.contains(key)).forEach(tombstones::add);
		this.reader.progressKeys().stream().filter((key) -> !progressKeys.contains(key)).forEach(tombstones::add);
		Set<String> members = plan.members().values().stream().map(MemberPlan::instanceId).collect(Collectors.toSet());
		this.reader.rejoinRequests().values().stream()
			.filter((rejoin) -> !members.contains(rejoin.instanceId()))
			.map(RejoinRequest::key)
			.forEach(tombstones::add);
		this.writer.publishPlan(records, tombstones);
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

	/**
	 * A leave record for an earlier start of a member (it restarted since) is ignored by the planner; say so once.
	 */
	private void warnOfStaleLeaves(Plan plan) {
		Map<String, String> incarnations = new HashMap<>();
		plan.members().values().forEach((member) -> incarnations.put(member.instanceId(), member.incarnation()));
		for (LeaveRecord leave : this.reader.leaveRecords().values()) {
			if (!leave.pending()) {
				continue;
			}
			String current = incarnations.get(leave.instanceId());
			if (current != null && !current.equals(leave.incarnation())
					&& this.warnedStale.add(startOf(leave.instanceId(), leave.incarnation()))) {
				logger.warn("Ignoring the leave request of {} for its start {}: it runs start {} now (restarted "
						+ "since); ask it again to drain it", leave.instanceId(), leave.incarnation(), current);
			}
		}
	}

	/**
	 * Leave records outlive their members (a pod that crashed while leaving): the leader tombstones those whose
	 * member start has been absent from the group for longer than the bound given. Absence is measured on this
	 * leader's clock from when it first planned without that start, never from the request's time (another machine's
	 * clock, and a drain of a large state may rightly take longer); a leader that takes over counts anew.
	 */
	private List<String> leavesOfLongGoneMembers(Plan plan, Instant now) {
		Set<String> present = plan.members().values().stream()
			.map((member) -> startOf(member.instanceId(), member.incarnation()))
			.collect(Collectors.toSet());
		Map<String, LeaveRecord> leaves = this.reader.leaveRecords();
		Set<String> absent = leaves.values().stream()
			.map((leave) -> startOf(leave.instanceId(), leave.incarnation()))
			.filter((start) -> !present.contains(start))
			.collect(Collectors.toSet());
		this.absentSince.keySet().retainAll(absent);
		absent.forEach((start) -> this.absentSince.putIfAbsent(start, now));
		return leaves.values().stream()
			.filter((leave) -> {
				Instant since = this.absentSince.get(startOf(leave.instanceId(), leave.incarnation()));
				return since != null && since.plus(this.goneFor).isBefore(now);
			})
			.map(LeaveRecord::key)
			.toList();
	}

	/**
	 * One start of a member, as the key of what the publisher remembers of it.
	 */
	private static String startOf(String instanceId, String incarnation) {
		return instanceId + "/" + incarnation;
	}

	private record Published(int generation, List<MemberPlan> members) {
	}

}
