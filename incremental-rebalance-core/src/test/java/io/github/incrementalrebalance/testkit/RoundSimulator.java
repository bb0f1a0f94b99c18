package io.github.incrementalrebalance.testkit;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.BooleanSupplier;

import io.github.incrementalrebalance.assignor.AssignorStatus;
import io.github.incrementalrebalance.assignor.ChangelogSizes;
import io.github.incrementalrebalance.planner.LeaveRequest;
import io.github.incrementalrebalance.assignor.LearnerTaskAssignor;
import io.github.incrementalrebalance.planner.MemberPlan;
import io.github.incrementalrebalance.planner.Plan;
import io.github.incrementalrebalance.assignor.PlanListener;
import io.github.incrementalrebalance.assignor.PreviousPlan;
import io.github.incrementalrebalance.planner.RebalancingMode;
import io.github.incrementalrebalance.assignor.ControlView;
import io.github.incrementalrebalance.identity.MemberIdentity;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ApplicationState;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsAssignment.AssignedTask;
import org.apache.kafka.streams.processor.assignment.KafkaStreamsState;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignmentUtils;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.AssignmentError;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.TaskAssignment;
import org.apache.kafka.streams.processor.assignment.TaskInfo;

/**
 * Drives the learner assignor round by round the way Kafka Streams 4.1 does, without a broker: a fresh assignor per
 * rebalance through its real KIP-924 entry point, Kafka's own validation of every result, and between rounds what
 * Kafka does to the members:
 * <ul>
 * <li>an active task given to a new owner is first only revoked from its old one (the new owner gets a temporary
 * standby if it has state), and the follow-up rebalance assigns it;</li>
 * <li>a revoked owner keeps its task directory and reports the lag of its checkpoint (about 0);</li>
 * <li>running actives report -2; a round can report -3 (end offsets unknown) for everything else;</li>
 * <li>leftover directories are reported as previous standbys; stateless tasks have no offsets;</li>
 * <li>as time passes, standbys and learners restore, paused while an active task of the same member restores.</li>
 * </ul>
 */
public final class RoundSimulator {

	private static final String INPUT = "input";

	private static final String CHANGELOG = "app-store-changelog";

	private static final Duration TICK = Duration.ofMillis(100);

	private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));

	private final InMemoryControlView controlView = new InMemoryControlView();

	private final AssignorStatus status = new AssignorStatus();

	private final Map<String, Object> config = new HashMap<>();

	private final SortedMap<TaskId, Long> endOffsets = new TreeMap<>();

	private final SortedMap<TaskId, Boolean> stateful = new TreeMap<>();

	private final Map<String, Member> members = new LinkedHashMap<>();

	private final Map<String, Instant> deadlines = new HashMap<>();

	private final List<Round> rounds = new ArrayList<>();

	private AssignmentConfigs assignmentConfigs = new AssignmentConfigs(10_000L, 2, 0, 600_000L, List.of());

	private long writesPerSecond;

	private long restoredPerSecond = 100_000;

	private boolean unknownOffsetsNextRound;

	/** The plan of the last round, as the leader of the next one knows it. */
	private List<MemberPlan> previousPlan = List.of();

	/** Whether the next leader knows the previous round's plan: false for a leader that has not read it yet. */
	private BooleanSupplier previousPlanKnown = () -> true;

	private List<String> partitionRacks = List.of();

	/** Why the changelog sizes cannot be read, if they cannot. */
	private String changelogSizesProblem;

	/**
	 * Use these Kafka assignment settings.
	 * @param acceptableRecoveryLag {@code acceptable.recovery.lag}
	 * @param maxWarmupReplicas {@code max.warmup.replicas}
	 * @param numStandbyReplicas {@code num.standby.replicas}
	 * @return this simulator
	 */
	public RoundSimulator kafkaSettings(long acceptableRecoveryLag, int maxWarmupReplicas, int numStandbyReplicas) {
		AssignmentConfigs configs = this.assignmentConfigs;
		this.assignmentConfigs = new AssignmentConfigs(acceptableRecoveryLag, maxWarmupReplicas, numStandbyReplicas,
				600_000L, configs.rackAwareAssignmentTags(), configs.rackAwareTrafficCost(),
				configs.rackAwareNonOverlapCost(), configs.rackAwareAssignmentStrategy());
		return this;
	}

	/**
	 * Turn on Kafka's rack-aware assignment ({@code rack.aware.assignment.strategy}, with the costs of Kafka's
	 * high-availability assignor set explicitly, as Kafka's optimizer needs them) and place the replicas of partition
	 * {@code p} of every topic in {@code racks[p % racks.length]}. Give members their rack with {@link #rack}.
	 * @param strategy {@code min_traffic} or {@code balance_subtopology}
	 * @param racks the racks partitions are spread over
	 * @return this simulator
	 */
	public RoundSimulator rackAware(String strategy, String... racks) {
		AssignmentConfigs configs = this.assignmentConfigs;
		this.assignmentConfigs = new AssignmentConfigs(configs.acceptableRecoveryLag(), configs.maxWarmupReplicas(),
				configs.numStandbyReplicas(), configs.probingRebalanceIntervalMs(), configs.rackAwareAssignmentTags(),
				OptionalInt.of(10), OptionalInt.of(1), strategy);
		this.config.put(StreamsConfig.RACK_AWARE_ASSIGNMENT_STRATEGY_CONFIG, strategy);
		this.partitionRacks = List.of(racks);
		return this;
	}

	/**
	 * Give a member its {@code client.rack}.
	 * @param name instance id
	 * @param rack the rack
	 * @return this simulator
	 */
	public RoundSimulator rack(String name, String rack) {
		member(name).rack = rack;
		return this;
	}

	/**
	 * The racks of a task's partitions' replicas, as set with {@link #rackAware}.
	 * @param task the task
	 * @return its racks, empty without rack-aware assignment
	 */
	private Optional<Set<String>> racksOf(TaskId task) {
		return this.partitionRacks.isEmpty() ? Optional.empty()
				: Optional.of(Set.of(this.partitionRacks.get(task.partition() % this.partitionRacks.size())));
	}

	/**
	 * Name the client tags that mark racks or zones ({@code rack.aware.assignment.tags}).
	 * @param tagKeys the tag keys
	 * @return this simulator
	 */
	public RoundSimulator rackAwareTags(String... tagKeys) {
		AssignmentConfigs configs = this.assignmentConfigs;
		this.assignmentConfigs = new AssignmentConfigs(configs.acceptableRecoveryLag(), configs.maxWarmupReplicas(),
				configs.numStandbyReplicas(), configs.probingRebalanceIntervalMs(), List.of(tagKeys),
				configs.rackAwareTrafficCost(), configs.rackAwareNonOverlapCost(), configs.rackAwareAssignmentStrategy());
		return this;
	}

	/**
	 * Give a member a client tag, such as its zone.
	 * @param name instance id
	 * @param key the tag key
	 * @param value its value
	 * @return this simulator
	 */
	public RoundSimulator tag(String name, String key, String value) {
		member(name).tags.put(key, value);
		return this;
	}

	/**
	 * Set a learner key (as in the Streams config), e.g. {@code incremental.rebalance.drain.hand.over}, or replace an
	 * object the simulator hands the assignor, e.g. the {@link ControlView}.
	 * @param key the key
	 * @param value the value
	 * @return this simulator
	 */
	public RoundSimulator learnerSetting(String key, Object value) {
		this.config.put(key, value);
		return this;
	}

	/**
	 * Changelog records written per second to every running stateful task.
	 * @param records the rate
	 * @return this simulator
	 */
	public RoundSimulator writes(long records) {
		this.writesPerSecond = records;
		return this;
	}

	/**
	 * Records a member restores per second into each restoring task, unless set per member.
	 * @param records the rate
	 * @return this simulator
	 */
	public RoundSimulator restores(long records) {
		this.restoredPerSecond = records;
		return this;
	}

	/**
	 * Add stateful tasks {@code 0_0 .. 0_(count-1)}, each with a changelog of the given size.
	 * @param count how many
	 * @param records changelog records of each
	 * @return this simulator
	 */
	public RoundSimulator statefulTasks(int count, long records) {
		for (int partition = 0; partition < count; partition++) {
			TaskId task = new TaskId(0, partition);
			this.stateful.put(task, true);
			this.endOffsets.put(task, records);
		}
		return this;
	}

	/**
	 * Add stateful tasks of another sub-topology, {@code s_0 .. s_(count-1)}, with topics of their own: a bucket of
	 * stateful tasks from several sub-topologies, as in most applications.
	 * @param subtopology the sub-topology, 2 or more (0 holds {@link #statefulTasks}, 1 {@link #statelessTasks})
	 * @param count how many
	 * @param records changelog records of each
	 * @return this simulator
	 */
	public RoundSimulator statefulTasksOfSubtopology(int subtopology, int count, long records) {
		if (subtopology < 2) {
			throw new IllegalArgumentException("sub-topologies 0 and 1 are statefulTasks' and statelessTasks'");
		}
		for (int partition = 0; partition < count; partition++) {
			TaskId task = new TaskId(subtopology, partition);
			this.stateful.put(task, true);
			this.endOffsets.put(task, records);
		}
		return this;
	}

	/**
	 * Give a stateful task's changelog another size, before members run or hold it.
	 * @param task the task
	 * @param records changelog records
	 * @return this simulator
	 */
	public RoundSimulator changelogRecords(TaskId task, long records) {
		if (!isStateful(task)) {
			throw new IllegalArgumentException(task + " is not a stateful task of the simulator");
		}
		this.endOffsets.put(task, records);
		return this;
	}

	/**
	 * Make the leader's reads of changelog sizes fail, as a broker that does not answer in time would.
	 * @param problem the failure's message, or null to let reads succeed again
	 * @return this simulator
	 */
	public RoundSimulator changelogSizesFail(String problem) {
		this.changelogSizesProblem = problem;
		return this;
	}

	/**
	 * Add stateless tasks {@code 1_0 .. 1_(count-1)}.
	 * @param count how many
	 * @return this simulator
	 */
	public RoundSimulator statelessTasks(int count) {
		for (int partition = 0; partition < count; partition++) {
			this.stateful.put(new TaskId(1, partition), false);
		}
		return this;
	}

	/**
	 * A member that already runs some tasks, caught up (the stable state a walkthrough starts from).
	 * @param name instance id
	 * @param threads its capacity
	 * @param running the tasks it runs
	 * @return this simulator
	 */
	public RoundSimulator running(String name, int threads, TaskId... running) {
		Member member = join(name, threads, RebalancingMode.INCREMENTAL);
		for (TaskId task : running) {
			member.active.put(task, true);
			if (isStateful(task)) {
				member.offsets.put(task, this.endOffsets.get(task));
			}
		}
		return this;
	}

	/**
	 * A member keeps state of a task it does not run: a leftover directory or a half-warm standby.
	 * @param name instance id
	 * @param task the task
	 * @param lag how far its state is behind the changelog end
	 * @return this simulator
	 */
	public RoundSimulator holds(String name, TaskId task, long lag) {
		Member member = member(name);
		if (!isStateful(task) || member.active.containsKey(task)) {
			throw new IllegalArgumentException(name + " cannot hold state of " + task);
		}
		member.offsets.put(task, Math.max(0, endOffset(task) - lag));
		return this;
	}

	/**
	 * A new member joins (it takes part from the next rebalance).
	 * @param name instance id
	 * @param threads capacity
	 * @return this simulator
	 */
	public RoundSimulator joins(String name, int threads) {
		join(name, threads, RebalancingMode.INCREMENTAL);
		return this;
	}

	/**
	 * A new member that runs mode {@code upgrading} joins.
	 * @param name instance id
	 * @param threads capacity
	 * @return this simulator
	 */
	public RoundSimulator joinsUpgrading(String name, int threads) {
		join(name, threads, RebalancingMode.UPGRADING);
		return this;
	}

	private Member join(String name, int threads, RebalancingMode mode) {
		if (this.members.containsKey(name)) {
			throw new IllegalArgumentException(name + " is already a member");
		}
		ProcessId processId = new ProcessId(UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)));
		Member member = new Member(processId, MemberIdentity.newIncarnation(name, mode, this.clock.instant()),
				threads);
		this.members.put(name, member);
		this.clock.advance(Duration.ofSeconds(1));
		return member;
	}

	/**
	 * A member disappears: crashed, or left the group (its tasks have no running owner in the next round).
	 * @param name instance id
	 * @return this simulator
	 */
	public RoundSimulator leavesGroup(String name) {
		if (this.members.remove(name) == null) {
			throw new IllegalArgumentException(name + " is not a member");
		}
		return this;
	}

	/**
	 * A member asks to leave (the control topic's leave record).
	 * @param name instance id
	 * @param timeout its drain timeout, if any
	 * @return this simulator
	 */
	public RoundSimulator requestsLeave(String name, Optional<Duration> timeout) {
		Member member = member(name);
		Optional<Instant> deadline = timeout.map((t) -> this.clock.instant().plus(t));
		this.controlView.requestLeave(new LeaveRequest(name, member.identity.incarnation(), "leave-of-" + name,
				deadline));
		deadline.ifPresent((until) -> this.deadlines.put(name, until));
		return this;
	}

	/**
	 * Leaving members whose drain timeout passed: as the real member does, they leave the group on their own
	 * (the leader does not keep their deadlines).
	 * @return their names
	 */
	public List<String> pastTheirDeadline() {
		Instant now = this.clock.instant();
		return this.deadlines.entrySet().stream()
			.filter((entry) -> this.members.containsKey(entry.getKey()) && !now.isBefore(entry.getValue()))
			.map(Map.Entry::getKey)
			.toList();
	}

	public RoundSimulator cancelsLeave(String name) {
		this.controlView.cancel(name);
		return this;
	}

	/**
	 * Restore speed of one member (a slow disk, a throttled restore consumer).
	 * @param name instance id
	 * @param recordsPerSecond its rate
	 * @return this simulator
	 */
	public RoundSimulator restoreRate(String name, long recordsPerSecond) {
		member(name).restoreRate = recordsPerSecond;
		return this;
	}

	/**
	 * The leader's view of the control topic may be out of date (it has not been readable for its timeout), or is
	 * read again.
	 * @param reason why it may be, empty once it is read again
	 * @return this simulator
	 */
	public RoundSimulator controlTopicOutOfDate(Optional<String> reason) {
		this.controlView.outOfDate(reason);
		return this;
	}

	/**
	 * The next round's end-offset fetch fails: every lag but the running actives' is -3.
	 * @return this simulator
	 */
	public RoundSimulator unknownOffsetsNextRound() {
		this.unknownOffsetsNextRound = true;
		return this;
	}

	/**
	 * Let time pass: running tasks take writes, then restoring actives catch up and, on members where no active
	 * restores, standbys and learners catch up.
	 * @param duration how long
	 * @return this simulator
	 */
	public RoundSimulator advance(Duration duration) {
		Duration left = duration;
		while (left.compareTo(TICK) > 0) {
			tick(TICK);
			left = left.minus(TICK);
		}
		tick(left);
		return this;
	}

	private void tick(Duration duration) {
		double seconds = duration.toMillis() / 1000.0;
		long written = (long) (this.writesPerSecond * seconds);
		Set<TaskId> runningSomewhere = new HashSet<>();
		this.members.values().forEach((member) -> member.active.forEach((task, running) -> {
			if (running) {
				runningSomewhere.add(task);
			}
		}));
		for (TaskId task : runningSomewhere) {
			if (isStateful(task)) {
				this.endOffsets.merge(task, written, Long::sum);
			}
		}
		for (Member member : this.members.values()) {
			long budget = (long) ((member.restoreRate != null ? member.restoreRate : this.restoredPerSecond) * seconds);
			List<TaskId> restoringActives = member.active.entrySet().stream()
				.filter((entry) -> !entry.getValue())
				.map(Map.Entry::getKey)
				.toList();
			if (!restoringActives.isEmpty()) {
				for (TaskId task : restoringActives) {
					long offset = Math.min(endOffset(task), member.offset(task) + budget);
					member.offsets.put(task, offset);
					if (offset >= endOffset(task)) {
						member.active.put(task, true);
					}
				}
			}
			else {
				for (TaskId task : member.standby) {
					member.offsets.put(task, Math.min(endOffset(task), member.offset(task) + budget));
				}
			}
			member.active.forEach((task, running) -> {
				if (running && isStateful(task)) {
					member.offsets.put(task, endOffset(task));
				}
			});
		}
		this.clock.advance(duration);
	}

	/**
	 * Let time pass in steps until a member's learner of a task is ready.
	 * @param name the member
	 * @param task the task it learns
	 * @param step the time step
	 * @return this simulator
	 */
	public RoundSimulator advanceUntilReady(String name, TaskId task, Duration step) {
		long threshold = this.assignmentConfigs.acceptableRecoveryLag();
		for (int i = 0; i < 100_000 && endOffset(task) - member(name).offset(task) > threshold; i++) {
			advance(step);
		}
		return this;
	}

	/**
	 * Whether the leader of each round knows the plan of the round before, asked once a round: a leader that took
	 * over before that plan's records reached it does not. Every round's leader knows it unless set.
	 * @param known asked before each round
	 * @return this simulator
	 */
	public RoundSimulator previousPlanKnown(BooleanSupplier known) {
		this.previousPlanKnown = known;
		return this;
	}

	/**
	 * One rebalance: a fresh assignor plans the group, Kafka validates, the members apply the result.
	 * @return what happened
	 */
	public Round rebalance() {
		ApplicationState state = applicationState();
		this.unknownOffsetsNextRound = false;
		Plan[] plan = new Plan[1];
		LearnerTaskAssignor assignor = assignor((computed, error) -> plan[0] = computed);
		TaskAssignment assignment = assignor.assign(state);
		AssignmentError error = TaskAssignmentUtils.validateTaskAssignment(state, assignment);
		assignor.onAssignmentComputed(null, null, error);
		this.previousPlan = (error == AssignmentError.NONE && plan[0] != null)
				? List.copyOf(plan[0].members().values()) : List.of();
		Round round = apply(assignment, plan[0], error);
		this.rounds.add(round);
		return round;
	}

	/**
	 * Rebalance, then keep rebalancing while Kafka would follow up at once (a task was only revoked).
	 * @return the rounds, at most 10
	 */
	public List<Round> rebalanceUntilSettled() {
		List<Round> settled = new ArrayList<>();
		do {
			settled.add(rebalance());
		}
		while (settled.get(settled.size() - 1).revokedOnly() && settled.size() < 10);
		return settled;
	}

	/**
	 * A fresh learner assignor, configured as the next rebalance's: the simulated control topic, clock and settings.
	 * @param planListener told of its plan
	 * @return the assignor
	 */
	public LearnerTaskAssignor assignor(PlanListener planListener) {
		Map<String, Object> assignorConfig = new HashMap<>();
		assignorConfig.put(ControlView.CONFIG, this.controlView);
		assignorConfig.put(AssignorStatus.CONFIG, this.status);
		assignorConfig.put(LearnerTaskAssignor.CLOCK_CONFIG, this.clock);
		assignorConfig.put(ChangelogSizes.CONFIG, (ChangelogSizes) this::changelogSizes);
		assignorConfig.putAll(this.config);
		assignorConfig.put(PlanListener.CONFIG, planListener);
		List<MemberPlan> previous = this.previousPlanKnown.getAsBoolean() ? this.previousPlan : List.of();
		assignorConfig.put(PreviousPlan.CONFIG, (PreviousPlan) () -> previous);
		LearnerTaskAssignor assignor = new LearnerTaskAssignor();
		assignor.configure(assignorConfig);
		return assignor;
	}

	/**
	 * Sub-topologies 0 and 1 share the topics, as they always did here; others have their own.
	 */
	private static String topicOf(String topic, TaskId task) {
		return (task.subtopology() < 2) ? topic : topic + "-" + task.subtopology();
	}

	private Map<TopicPartition, Long> changelogSizes(Set<TopicPartition> partitions) {
		if (this.changelogSizesProblem != null) {
			throw new IllegalStateException(this.changelogSizesProblem);
		}
		Map<TopicPartition, Long> records = new HashMap<>();
		partitions.forEach((partition) -> {
			String topic = partition.topic();
			int subtopology = topic.equals(CHANGELOG) ? 0 : Integer.parseInt(topic.substring(CHANGELOG.length() + 1));
			records.put(partition, endOffset(new TaskId(subtopology, partition.partition())));
		});
		return records;
	}

	/**
	 * What Kafka hands the assignor of the next rebalance; any KIP-924 assignor can be run on it.
	 * @return the group's state
	 */
	public ApplicationState applicationState() {
		Map<ProcessId, KafkaStreamsState> clients = new HashMap<>();
		for (Member member : this.members.values()) {
			SortedSet<TaskId> previousActive = new TreeSet<>(member.active.keySet());
			SortedSet<TaskId> previousStandby = new TreeSet<>(member.offsets.keySet());
			previousStandby.removeAll(previousActive);
			Map<TaskId, Long> lags = new HashMap<>();
			for (TaskId task : this.endOffsets.keySet()) {
				if (Boolean.TRUE.equals(member.active.get(task))) {
					lags.put(task, -2L);
				}
				else if (this.unknownOffsetsNextRound) {
					lags.put(task, -3L);
				}
				else {
					lags.put(task, endOffset(task) - member.offset(task));
				}
			}
			clients.put(member.processId, new SimulatedApplicationState.Client(member.processId, member.threads,
					previousActive, previousStandby, lags, member.tags, Optional.ofNullable(member.rack), true));
		}
		Map<TaskId, TaskInfo> tasks = new HashMap<>();
		this.stateful.forEach((task, changelogged) -> tasks.put(task,
				SimulatedApplicationState.task(task, changelogged, topicOf(INPUT, task), topicOf(CHANGELOG, task),
						racksOf(task))));
		return new SimulatedApplicationState(this.assignmentConfigs, clients, tasks);
	}

	private Round apply(TaskAssignment assignment, Plan plan, AssignmentError error) {
		Map<ProcessId, String> names = new HashMap<>();
		this.members.forEach((name, member) -> names.put(member.processId, name));
		Map<String, Set<TaskId>> newActive = new HashMap<>();
		Map<String, Set<TaskId>> newStandby = new HashMap<>();
		for (KafkaStreamsAssignment client : assignment.assignment()) {
			String name = names.get(client.processId());
			for (AssignedTask task : client.tasks().values()) {
				(task.type() == AssignedTask.Type.ACTIVE ? newActive : newStandby)
					.computeIfAbsent(name, (n) -> new TreeSet<>())
					.add(task.id());
			}
		}
		Map<TaskId, String> ownerBefore = new HashMap<>();
		this.members.forEach((name, member) -> member.active.keySet().forEach((task) -> ownerBefore.put(task, name)));
		Map<String, Set<TaskId>> revoked = new TreeMap<>();
		Map<TaskId, Long> restoredAtPromotion = new TreeMap<>();
		boolean revokedOnly = false;
		for (Map.Entry<String, Member> entry : this.members.entrySet()) {
			String name = entry.getKey();
			Member member = entry.getValue();
			Set<TaskId> assignedActive = newActive.getOrDefault(name, Set.of());
			for (TaskId task : new ArrayList<>(member.active.keySet())) {
				if (!assignedActive.contains(task)) {
					member.active.remove(task);
					if (isStateful(task)) {
						member.offsets.merge(task, endOffset(task), Math::min);
					}
					revoked.computeIfAbsent(name, (n) -> new TreeSet<>()).add(task);
				}
			}
		}
		for (Map.Entry<String, Member> entry : this.members.entrySet()) {
			String name = entry.getKey();
			Member member = entry.getValue();
			Set<TaskId> standbys = new TreeSet<>(newStandby.getOrDefault(name, Set.of()));
			for (TaskId task : newActive.getOrDefault(name, Set.of())) {
				if (member.active.containsKey(task)) {
					continue;
				}
				String previousOwner = ownerBefore.get(task);
				if (previousOwner != null && !previousOwner.equals(name)) {
					revokedOnly = true;
					if (member.offsets.containsKey(task)) {
						standbys.add(task);
					}
					continue;
				}
				boolean warm = !isStateful(task) || member.offset(task) >= endOffset(task);
				if (isStateful(task)) {
					restoredAtPromotion.put(task, endOffset(task) - member.offset(task));
					member.offsets.putIfAbsent(task, 0L);
				}
				member.active.put(task, warm);
			}
			for (TaskId task : standbys) {
				member.offsets.putIfAbsent(task, 0L);
			}
			member.standby = standbys;
		}
		Map<String, SortedSet<TaskId>> assigned = new TreeMap<>();
		Map<String, SortedSet<TaskId>> learning = new TreeMap<>();
		this.members.forEach((name, member) -> {
			assigned.put(name, Collections.unmodifiableSortedSet(new TreeSet<>(member.active.keySet())));
			learning.put(name, plan == null ? Collections.emptySortedSet()
					: plan.member(name).map((p) -> Collections.unmodifiableSortedSet(new TreeSet<>(p.learning().keySet())))
						.orElse(Collections.emptySortedSet()));
		});
		return new Round(this.rounds.size() + 1, plan, error, assigned, revoked, learning, restoredAtPromotion,
				revokedOnly, this.clock.instant());
	}

	public Instant now() {
		return this.clock.instant();
	}

	public List<Round> rounds() {
		return List.copyOf(this.rounds);
	}

	public AssignorStatus assignorStatus() {
		return this.status;
	}

	public Set<String> memberNames() {
		return Collections.unmodifiableSet(new TreeSet<>(this.members.keySet()));
	}

	public SortedSet<TaskId> tasks() {
		return Collections.unmodifiableSortedSet(new TreeSet<>(this.stateful.keySet()));
	}

	public boolean isStateful(TaskId task) {
		return this.stateful.getOrDefault(task, false);
	}

	public long endOffset(TaskId task) {
		return this.endOffsets.getOrDefault(task, 0L);
	}

	public ProcessId processId(String name) {
		return member(name).processId;
	}

	public int threads(String name) {
		return member(name).threads;
	}

	/**
	 * Tasks a member runs now (running or restoring).
	 * @param name the member
	 * @return its active tasks
	 */
	public SortedSet<TaskId> activeTasks(String name) {
		return Collections.unmodifiableSortedSet(new TreeSet<>(member(name).active.keySet()));
	}

	/**
	 * How far a member's learner or standby of a task is behind.
	 * @param name the member
	 * @param task the task
	 * @return its lag
	 */
	public long lag(String name, TaskId task) {
		return endOffset(task) - member(name).offset(task);
	}

	private Member member(String name) {
		Member member = this.members.get(name);
		if (member == null) {
			throw new IllegalArgumentException(name + " is not a member");
		}
		return member;
	}

	/**
	 * One rebalance of the simulation.
	 *
	 * @param number 1 for the first
	 * @param plan the learner plan, null when the assignor fell back
	 * @param error Kafka's validation of the assignment
	 * @param assigned active tasks of each member after the round
	 * @param revoked tasks taken from each member this round
	 * @param learning each member's learners in the plan
	 * @param restoredAtPromotion records each newly active stateful task had to restore on its new owner
	 * @param revokedOnly whether a task was only revoked, so Kafka follows up at once
	 * @param at the simulated time of the round
	 */
	public record Round(int number, Plan plan, AssignmentError error, Map<String, SortedSet<TaskId>> assigned,
			Map<String, Set<TaskId>> revoked, Map<String, SortedSet<TaskId>> learning,
			Map<TaskId, Long> restoredAtPromotion, boolean revokedOnly, Instant at) {

		public SortedSet<TaskId> assigned(String member) {
			return this.assigned.getOrDefault(member, Collections.emptySortedSet());
		}

		public Set<TaskId> revoked(String member) {
			return this.revoked.getOrDefault(member, Set.of());
		}

		public SortedSet<TaskId> learning(String member) {
			return this.learning.getOrDefault(member, Collections.emptySortedSet());
		}

	}

	private static final class Member {

		private final ProcessId processId;

		private final MemberIdentity identity;

		private final int threads;

		/** Active tasks; true when running, false while restoring. */
		private final Map<TaskId, Boolean> active = new TreeMap<>();

		/** Local store position of every task directory. */
		private final Map<TaskId, Long> offsets = new TreeMap<>();

		private Set<TaskId> standby = new TreeSet<>();

		private final Map<String, String> tags;

		private Long restoreRate;

		private String rack;

		Member(ProcessId processId, MemberIdentity identity, int threads) {
			this.processId = processId;
			this.identity = identity;
			this.threads = threads;
			this.tags = new HashMap<>(identity.clientTags());
		}

		long offset(TaskId task) {
			return this.offsets.getOrDefault(task, 0L);
		}

	}

}
