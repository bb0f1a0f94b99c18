package io.github.incrementalrebalance.control;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import io.github.incrementalrebalance.planner.Learner;
import io.github.incrementalrebalance.planner.MemberPlan;
import io.github.incrementalrebalance.planner.StartId;
import org.apache.kafka.streams.processor.TaskId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leaves whose member left the group without recording how they ended: a pod killed at the end of its grace period
 * mid-drain, a process that died. The leader that plans without such a member notes how many of its tasks had no
 * ready learner then, and once the member had the control topic's timeout to record its own end (the bound of that
 * write), records it for the member as {@code killed}, so that the others' view, counters and alerts learn how it
 * ended. A leader that loses its role before then records nothing: the next one does not know the member left.
 * Absences are measured on the leader's clock, as the housekeeping's are. {@link #planned} runs on the leader's stream
 * thread, {@link #check} on its member's check thread.
 */
final class DepartedLeaves {

	private static final Logger logger = LoggerFactory.getLogger(DepartedLeaves.class);

	private final ControlTopicReader reader;

	private final ControlWriter writer;

	private final Duration grace;

	private final Clock elapsed;

	private final Map<StartId, Departure> departed = new ConcurrentHashMap<>();

	/**
	 * @param reader the control topic as read
	 * @param writer where the ends are recorded
	 * @param grace how long a member that left may take to record its own end (the control topic's timeout)
	 * @param elapsed the leader's clock
	 */
	DepartedLeaves(ControlTopicReader reader, ControlWriter writer, Duration grace, Clock elapsed) {
		this.reader = reader;
		this.writer = writer;
		this.grace = grace;
		this.elapsed = elapsed;
	}

	/**
	 * A plan is published: note every leaving member the plan it replaces held and this one does not.
	 * @param before the plans of the epoch the new one replaces
	 * @param after the new plan's members
	 */
	void planned(Collection<MemberPlan> before, Collection<MemberPlan> after) {
		Set<StartId> staying = after.stream().map(DepartedLeaves::startOf).collect(Collectors.toSet());
		Set<TaskId> readyLearners = new HashSet<>();
		before.forEach((member) -> member.learning().values().stream().filter(Learner::ready)
			.forEach((learner) -> readyLearners.add(learner.task())));
		this.reader.progress().forEach((record) -> record.learners().stream()
			.filter(ProgressRecord.LearnerProgress::ready)
			.forEach((learner) -> readyLearners.add(TaskId.parse(learner.task()))));
		Instant now = this.elapsed.instant();
		for (MemberPlan member : before) {
			StartId start = startOf(member);
			if (member.leaving() && !staying.contains(start)) {
				long cold = member.beingLearned().stream().filter((task) -> !readyLearners.contains(task)).count();
				this.departed.putIfAbsent(start, new Departure(member.leaveId().orElseThrow(), (int) cold, now));
			}
		}
	}

	/**
	 * Record the end of each leave whose member left more than the grace ago and has not recorded it.
	 */
	void check() {
		Instant now = this.elapsed.instant();
		for (Map.Entry<StartId, Departure> entry : this.departed.entrySet()) {
			Departure departure = entry.getValue();
			if (now.isBefore(departure.at().plus(this.grace))) {
				continue;
			}
			this.departed.remove(entry.getKey());
			StartId start = entry.getKey();
			this.reader.leaveRecord(start.instanceId(), start.incarnation())
				.filter((leave) -> leave.pending() && leave.leaveId().equals(departure.leaveId()))
				.ifPresent((leave) -> record(leave, departure));
		}
	}

	private void record(LeaveRecord leave, Departure departure) {
		LeaveRecord.Ended ended = new LeaveRecord.Ended(LeaveRecord.Ended.KILLED,
				LeaveRecord.Ended.NO_END_RECORDED, departure.tasksMovedCold());
		logger.warn("{} left the group mid-leave without recording how its leave ended (killed at the end of a grace "
				+ "period, or its process died): recorded as {}", leave.instanceId(), ended);
		this.writer.write(leave.endedAs(ended)).whenComplete((done, failure) -> {
			if (failure != null) {
				logger.warn("Could not record how the leave of {} ended", leave.instanceId(), failure);
			}
		});
	}

	private static StartId startOf(MemberPlan member) {
		return new StartId(member.instanceId(), member.incarnation());
	}

	/**
	 * A leaving member the leader planned without.
	 * @param leaveId the leave it acted on
	 * @param tasksMovedCold its tasks whose learner was not ready then
	 * @param at when, on the leader's monotonic clock
	 */
	private record Departure(String leaveId, int tasksMovedCold, Instant at) {
	}

}
