package io.github.incrementalrebalance.member;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import io.github.incrementalrebalance.control.ControlClients;
import io.github.incrementalrebalance.control.ControlState;
import io.github.incrementalrebalance.control.ProgressRecord.LearnerProgress;
import io.github.incrementalrebalance.identity.MemberIdentity;
import io.github.incrementalrebalance.planner.StartId;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeStreamsGroupsOptions;
import org.apache.kafka.clients.admin.StreamsGroupDescription;
import org.apache.kafka.clients.admin.StreamsGroupMemberAssignment;
import org.apache.kafka.clients.admin.StreamsGroupMemberDescription;
import org.apache.kafka.streams.processor.TaskId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Under Kafka's streams protocol the broker places the standbys and picks the new owner of each task a member leaves
 * behind, by its own rules (a previous standby is preferred only while it has room): a leaving member's tasks are warm
 * wherever they go only when every other instance holds a ready copy of each. Who holds which copy comes from the
 * broker ({@code describeStreamsGroups}); how far each copy is behind from its member's progress record on the control
 * topic. On the member's check thread: the describe call waits for the cluster, at most the control topic's timeout.
 */
final class StandbyCopies implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(StandbyCopies.class);

	/**
	 * The group's coordinator answers each describe: once a second is enough, since copies become ready at the pace of
	 * the progress records and move at the pace of the broker's heartbeats.
	 */
	static final Duration DESCRIBE_SPACING = Duration.ofSeconds(1);

	private final MemberIdentity self;

	private final String groupId;

	private final Supplier<Set<TaskId>> tasks;

	private final ControlState reader;

	private final ControlClients clients;

	private final Duration timeout;

	private final Clock clock;

	private Admin admin;

	private Optional<Map<StartId, Set<TaskId>>> lastCopies = Optional.empty();

	private Instant describedAt = Instant.MIN;

	private boolean describeFailed;

	/** The instances a WARN named as holding no copy of a task, so that it is said once. */
	private final Set<String> namedWithoutCopy = new HashSet<>();

	/**
	 * @param self the leaving member's start
	 * @param groupId the streams group (the application id)
	 * @param tasks the stateful tasks the member runs, which must be warm elsewhere
	 * @param reader the control topic, for the progress records
	 * @param clients makes the admin client that describes the group
	 * @param timeout how long the describe call may take
	 * @param clock the member's elapsed clock, which spaces the describe calls
	 */
	StandbyCopies(MemberIdentity self, String groupId, Supplier<Set<TaskId>> tasks, ControlState reader,
			ControlClients clients, Duration timeout, Clock clock) {
		this.self = self;
		this.groupId = groupId;
		this.tasks = tasks;
		this.reader = reader;
		this.clients = clients;
		this.timeout = timeout;
		this.clock = clock;
	}

	/**
	 * The member's stateful tasks that would not be warm on every other instance if it left now.
	 * @return by task, the largest lag a copy of it reported; empty where an instance holds no copy, or its copy has
	 * not reported, or the group could not be described
	 */
	synchronized Map<String, Optional<Long>> notReady() {
		Set<TaskId> own = this.tasks.get();
		if (own.isEmpty()) {
			return Map.of();
		}
		Map<String, Optional<Long>> notReady = new TreeMap<>();
		Optional<Map<StartId, Set<TaskId>>> others = copiesOnOthers();
		if (others.isEmpty() || others.get().isEmpty()) {
			// with no other instance there is nowhere warm to go: the leave waits for one, or ends at its timeout
			own.forEach((task) -> notReady.put(task.toString(), Optional.empty()));
			return notReady;
		}
		Map<StartId, Map<String, LearnerProgress>> reported = new HashMap<>();
		others.get().keySet().forEach((start) -> reported.put(start, reportedBy(start)));
		for (TaskId task : own) {
			for (Map.Entry<StartId, Set<TaskId>> other : others.get().entrySet()) {
				LearnerProgress copy = other.getValue().contains(task)
						? reported.getOrDefault(other.getKey(), Map.of()).get(task.toString()) : null;
				if (copy == null) {
					notReady.put(task.toString(), Optional.empty());
					if (!other.getValue().contains(task)) {
						warnNoCopy(task, other.getKey(), others.get().size());
					}
				}
				else if (!copy.ready() && notReady.getOrDefault(task.toString(), Optional.of(0L)).isPresent()) {
					notReady.merge(task.toString(), Optional.of(copy.lag()),
							(a, b) -> Optional.of(Math.max(a.orElse(0L), b.orElse(0L))));
				}
			}
		}
		return notReady;
	}

	private void warnNoCopy(TaskId task, StartId instance, int staying) {
		if (this.namedWithoutCopy.add(instance.instanceId())) {
			logger.warn("The drain of {} waits: {} holds no copy of task {} (and perhaps others). Under the streams "
					+ "protocol the broker picks the new owner of each task, so a drain hands over only once every "
					+ "instance that stays holds a ready standby of each: the group's streams.num.standby.replicas must "
					+ "be at least the instances that stay ({} now), else the leave ends at its timeout with such tasks "
					+ "moved cold", this.self.instanceId(), instance.instanceId(), task, staying);
		}
	}

	/**
	 * The copies every other instance of the group holds now, standby or active, by the start that holds them (a start
	 * runs one member of the group per stream thread).
	 * @return the copies, empty when the group could not be described
	 */
	private Optional<Map<StartId, Set<TaskId>>> copiesOnOthers() {
		Instant now = this.clock.instant();
		if (now.isBefore(this.describedAt.plus(DESCRIBE_SPACING))) {
			return this.lastCopies;
		}
		this.describedAt = now;
		this.lastCopies = describe();
		return this.lastCopies;
	}

	private Optional<Map<StartId, Set<TaskId>>> describe() {
		try {
			if (this.admin == null) {
				this.admin = this.clients.admin();
			}
			StreamsGroupDescription group = this.admin
				.describeStreamsGroups(List.of(this.groupId),
						new DescribeStreamsGroupsOptions().timeoutMs((int) this.timeout.toMillis()))
				.all()
				.get(this.timeout.toMillis(), TimeUnit.MILLISECONDS)
				.get(this.groupId);
			if (this.describeFailed) {
				this.describeFailed = false;
				logger.info("The streams group {} is described again: the drain of {} follows its standbys",
						this.groupId, this.self.instanceId());
			}
			Map<StartId, Set<TaskId>> copies = new HashMap<>();
			for (StreamsGroupMemberDescription member : group.members()) {
				// an instance without this library's tags is still an instance the broker may move a task to: it
				// reports no progress, so its copies never count as ready
				StartId holder = MemberIdentity.fromClientTags(member.clientTags())
					.map((identity) -> new StartId(identity.instanceId(), identity.incarnation()))
					.orElseGet(() -> new StartId(member.processId(), "untagged"));
				if (holder.instanceId().equals(this.self.instanceId())) {
					continue;
				}
				Set<TaskId> held = copies.computeIfAbsent(holder, (start) -> new HashSet<>());
				held.addAll(tasksOf(member.assignment().standbyTasks()));
				held.addAll(tasksOf(member.assignment().activeTasks()));
			}
			return Optional.of(copies);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return Optional.empty();
		}
		catch (ExecutionException | TimeoutException | RuntimeException ex) {
			if (!this.describeFailed) {
				this.describeFailed = true;
				Throwable cause = (ex instanceof ExecutionException) ? ex.getCause() : ex;
				logger.warn("Cannot describe the streams group {} (the drain of {} holds its hand-over until it can "
						+ "see every standby): {}", this.groupId, this.self.instanceId(), cause.toString());
			}
			return Optional.empty();
		}
	}

	private Map<String, LearnerProgress> reportedBy(StartId start) {
		Map<String, LearnerProgress> byTask = new HashMap<>();
		this.reader.progressOf(start)
			.ifPresent((record) -> record.learners().forEach((learner) -> byTask.put(learner.task(), learner)));
		return byTask;
	}

	private static Set<TaskId> tasksOf(List<StreamsGroupMemberAssignment.TaskIds> ids) {
		Set<TaskId> tasks = new HashSet<>();
		for (StreamsGroupMemberAssignment.TaskIds subtopology : ids) {
			int id = Integer.parseInt(subtopology.subtopologyId());
			subtopology.partitions().forEach((partition) -> tasks.add(new TaskId(id, partition)));
		}
		return tasks;
	}

	@Override
	public synchronized void close() {
		if (this.admin != null) {
			this.admin.close(Duration.ZERO);
			this.admin = null;
		}
	}

}
