package io.github.incrementalrebalance.control;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import io.github.incrementalrebalance.planner.MemberPlan;
import io.github.incrementalrebalance.planner.Plan;
import io.github.incrementalrebalance.planner.StartId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the leader removes from the control topic with each plan it publishes: the plans, progress records and rejoin
 * requests of member starts no longer in the group, and the leave records of starts absent for longer than the
 * retention. Absence is measured on this leader's clock from when it first planned without that start, never from the
 * request's time (another machine's clock, and a drain of a large state may rightly take longer); a leader that takes
 * over counts anew. Called on the leader's stream thread.
 */
final class ControlHousekeeping {

	private static final Logger logger = LoggerFactory.getLogger(ControlHousekeeping.class);

	private final ControlTopicReader reader;

	private final Duration goneFor;

	private final Set<StartId> warnedStale = ConcurrentHashMap.newKeySet();

	private final Map<StartId, Instant> absentSince = new ConcurrentHashMap<>();

	/**
	 * @param reader the control topic as read
	 * @param goneFor how long a leave record is kept while the member start it names is absent from the group
	 */
	ControlHousekeeping(ControlTopicReader reader, Duration goneFor) {
		this.reader = reader;
		this.goneFor = goneFor;
	}

	/**
	 * The keys to delete along with a plan: none while another application's plans are on the topic too.
	 * @param plan the plan about to be published
	 * @param now the leader's time
	 * @return the keys
	 */
	List<String> tombstones(Plan plan, Instant now) {
		warnOfStaleLeaves(plan);
		if (!this.reader.otherApplications().isEmpty()) {
			// another application's records are here too: whatever this plan does not name may be its
			return List.of();
		}
		Set<String> keys = new HashSet<>();
		Set<String> progressKeys = new HashSet<>();
		for (MemberPlan member : plan.members().values()) {
			keys.add(PlanRecord.keyOf(member.instanceId(), member.incarnation()));
			progressKeys.add(ProgressRecord.keyOf(member.instanceId(), member.incarnation()));
		}
		List<String> tombstones = new ArrayList<>(leavesOfLongGoneMembers(plan, now));
		ControlTopicView view = this.reader.view();
		view.planKeys().stream().filter((key) -> !keys.contains(key)).forEach(tombstones::add);
		this.reader.progressKeys().stream().filter((key) -> !progressKeys.contains(key)).forEach(tombstones::add);
		Set<String> members = plan.members().values().stream().map(MemberPlan::instanceId).collect(Collectors.toSet());
		view.rejoinRequests()
			.values()
			.stream()
			.filter((rejoin) -> !members.contains(rejoin.instanceId()))
			.map(RejoinRequest::key)
			.forEach(tombstones::add);
		return tombstones;
	}

	/**
	 * A leave record for an earlier start of a member (it restarted since) is ignored by the planner; say so once.
	 */
	private void warnOfStaleLeaves(Plan plan) {
		Map<String, String> incarnations = new HashMap<>();
		plan.members().values().forEach((member) -> incarnations.put(member.instanceId(), member.incarnation()));
		for (LeaveRecord leave : this.reader.view().leaveRecordsOfEveryStart()) {
			if (!leave.pending()) {
				continue;
			}
			String current = incarnations.get(leave.instanceId());
			if (current != null && !current.equals(leave.incarnation())
					&& this.warnedStale.add(new StartId(leave.instanceId(), leave.incarnation()))) {
				logger.warn("Ignoring the leave request of {} for its start {}: it runs start {} now (restarted "
						+ "since); ask it again to drain it", leave.instanceId(), leave.incarnation(), current);
			}
		}
	}

	private List<String> leavesOfLongGoneMembers(Plan plan, Instant now) {
		Set<StartId> present = plan.members()
			.values()
			.stream()
			.map((member) -> new StartId(member.instanceId(), member.incarnation()))
			.collect(Collectors.toSet());
		List<LeaveRecord> leaves = this.reader.view().leaveRecordsOfEveryStart();
		Set<StartId> absent = leaves.stream()
			.map((leave) -> new StartId(leave.instanceId(), leave.incarnation()))
			.filter((start) -> !present.contains(start))
			.collect(Collectors.toSet());
		this.absentSince.keySet().retainAll(absent);
		absent.forEach((start) -> this.absentSince.putIfAbsent(start, now));
		return leaves.stream().filter((leave) -> {
			Instant since = this.absentSince.get(new StartId(leave.instanceId(), leave.incarnation()));
			return since != null && since.plus(this.goneFor).isBefore(now);
		}).map(LeaveRecord::key).toList();
	}

}
