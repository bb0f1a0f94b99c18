package io.github.incrementalrebalance.chaos;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;

import io.github.incrementalrebalance.control.LeaveRecord;
import io.github.incrementalrebalance.testkit.ExactCountVerifier;
import io.github.incrementalrebalance.testkit.FaultProxy;
import org.apache.kafka.streams.processor.TaskId;
import org.awaitility.core.ConditionTimeoutException;

import static org.awaitility.Awaitility.await;

/**
 * Applies a seeded random sequence of scale events to a {@link ChaosGroup}, one after the other, each while what an
 * earlier one started may still be under way where the event says so (a kill during a drain, a host swap while the
 * new instances have not settled). After each: waits until the group settles, accounts for every leave, records
 * stalls, restores and rebalances. A broken invariant fails at once, naming the event, the seed and the group's
 * state.
 */
final class ChaosRunner {

	/**
	 * Leaves that the product promises end drained: nothing happens to the group meanwhile but slowness, a
	 * partition or a broker's restart, which never turn a leave without a deadline cold.
	 */
	private static final Set<ChaosEvent> WARM_LEAVES = Set.of(ChaosEvent.LEAVE, ChaosEvent.LEAVE_WITH_DEADLINE,
			ChaosEvent.HOST_SWAP, ChaosEvent.LEAVE_TWICE, ChaosEvent.CUT_DURING_DRAIN,
			ChaosEvent.SLOW_LEADER_DURING_LEAVE, ChaosEvent.CONTROL_CUT_DURING_DRAIN, ChaosEvent.SHORT_CUT_DURING_DRAIN,
			ChaosEvent.SLOW_CALL_DURING_LEAVE, ChaosEvent.BROKER_BOUNCE_DURING_DRAIN,
			ChaosEvent.COORDINATOR_BOUNCE_DURING_DRAIN);

	/**
	 * Of those, the events in which nothing but the leave moves a task: a member cut off past its session, or a
	 * slowed leader the coordinator removes, has its own tasks restored elsewhere, as Kafka moves them.
	 */
	private static final Set<ChaosEvent> ONLY_THE_LEAVE_MOVES = Set.of(ChaosEvent.LEAVE,
			ChaosEvent.LEAVE_WITH_DEADLINE, ChaosEvent.HOST_SWAP, ChaosEvent.LEAVE_TWICE,
			ChaosEvent.CONTROL_CUT_DURING_DRAIN, ChaosEvent.SHORT_CUT_DURING_DRAIN, ChaosEvent.SLOW_CALL_DURING_LEAVE,
			ChaosEvent.LEAVE_AND_CANCEL_DURING_CONTROL_CUT);

	/** How long the control topic stays cut during a drain. */
	private static final Duration CONTROL_CUT = Duration.ofSeconds(20);

	/** How long a bounced broker stays down. */
	private static final Duration BROKER_DOWN = Duration.ofSeconds(20);

	/** How long a stream thread is stuck in a slow call. */
	private static final Duration SLOW_CALL = Duration.ofSeconds(15);

	/** The latency a slowed link adds, each way. */
	private static final Duration SLOW_LINK = Duration.ofSeconds(1);

	private static final Duration SETTLED_FOR = Duration.ofSeconds(2);

	private final ChaosGroup group;

	private final ChaosSettings settings;

	private final Random random;

	private final List<Leave> leaves = new ArrayList<>();

	private final Map<String, String> goneStarts = new LinkedHashMap<>();

	private final List<ChaosReport.Event> events = new ArrayList<>();

	private final List<ChaosEvent> deck = new ArrayList<>();

	/** Leaves found on the control topic that the run did not ask for: an instance drained unasked. */
	private final Set<String> unasked = new TreeSet<>();

	private int index;

	private ChaosEvent kind;

	private List<String> targets;

	private String notSettledBecause;

	ChaosRunner(ChaosGroup group, ChaosSettings settings) {
		this.group = group;
		this.settings = settings;
		this.random = new Random(settings.seed());
	}

	ChaosReport run() {
		this.group.setUp();
		this.kind = ChaosEvent.START;
		this.targets = this.group.alive();
		awaitSettled();
		for (this.index = 1; this.index <= this.settings.events(); this.index++) {
			this.kind = next();
			apply();
		}
		ExactCountVerifier.Mismatch counts = this.group.stopAndVerify();
		return ChaosReport.of(this.settings, this.events, counts.lost(),
				counts.duplicated() + this.group.duplicatedDownstream(), this.unasked.size());
	}

	/**
	 * The next event: the next kind of a shuffled deck of every kind, so that a run of a few dozen events applies each
	 * kind several times. When that kind does not fit the group now (it would leave fewer than two instances, or more
	 * than five), an instance starts or leaves first to make room.
	 */
	private ChaosEvent next() {
		if (this.deck.isEmpty()) {
			for (ChaosEvent each : ChaosEvent.values()) {
				boolean drawn = this.settings.kinds().isEmpty() || this.settings.kinds().contains(each);
				if (drawn && (this.settings.faults() || !each.fault())
						&& (this.settings.brokers() == 3 || !each.cluster())) {
					this.deck.add(each);
				}
			}
			Collections.shuffle(this.deck, this.random);
		}
		ChaosEvent kind = this.deck.get(0);
		int alive = this.group.alive().size();
		if (kind == ChaosEvent.START || kind == ChaosEvent.HOST_SWAP) {
			if (alive >= ChaosSettings.MAX_INSTANCES) {
				return ChaosEvent.LEAVE;
			}
		}
		else if (kind == ChaosEvent.LEAVE_GONE) {
			if (this.goneStarts.isEmpty()) {
				return (alive > ChaosSettings.MIN_INSTANCES) ? ChaosEvent.CLOSE : ChaosEvent.START;
			}
		}
		else if (alive - kind.removes() < ChaosSettings.MIN_INSTANCES) {
			return ChaosEvent.START;
		}
		return this.deck.remove(0);
	}

	private void apply() {
		Instant start = Instant.now();
		int generation = this.group.generation();
		Map<TaskId, Long> restored = this.group.restoredByTask();
		int leavesBefore = this.leaves.size();
		this.targets = new ArrayList<>();
		switch (this.kind) {
			case START -> this.targets.add(this.group.start());
			case LEAVE -> leave(pick(), Optional.empty());
			case LEAVE_WITH_DEADLINE -> leave(pick(), Optional.of(Duration.ofMinutes(3)));
			case LEAVE_WITH_SHORT_DEADLINE -> leave(pick(), Optional.of(Duration.ofMillis(300)));
			case LEAVE_THEN_CANCEL -> {
				Leave leave = leave(pick(), Optional.empty());
				awaitLearnersOf(leave, Duration.ofSeconds(30));
				if (leave.outcome == null) {
					this.group.write(leave.request.cancel("chaos"));
				}
			}
			case HOST_SWAP -> {
				int swapped = 1 + this.random.nextInt(Math.min(2, ChaosSettings.MAX_INSTANCES - this.group.alive().size()));
				List<String> old = new ArrayList<>(this.group.alive());
				for (int i = 0; i < swapped; i++) {
					this.targets.add(this.group.start());
				}
				for (int i = 0; i < swapped; i++) {
					leave(old.remove(this.random.nextInt(old.size())), Optional.empty());
				}
			}
			case CLOSE -> {
				String name = pick();
				this.targets.add(name);
				remember(name);
				if (!this.group.terminate(name)) {
					fail(name + " did not exit within a minute of SIGTERM");
				}
			}
			case RESTART -> {
				String name = pick();
				this.targets.add(name);
				remember(name);
				String before = this.goneStarts.get(name);
				if (!this.group.terminate(name)) {
					fail(name + " did not exit within a minute of SIGTERM");
				}
				this.group.start(name);
				// a leave for the start before, as a command line that read the plan before the restart writes it
				LeaveRecord request = this.group.write(LeaveRecord.request(name, before,
						Instant.now().truncatedTo(ChronoUnit.MILLIS), Optional.empty(), "chaos"));
				Leave stale = new Leave(name, request, Set.of());
				stale.end("ignored", "its start is gone: the instance runs again under its id", 0);
				this.leaves.add(stale);
			}
			case KILL -> kill(pickOtherThan(this.group.leader()));
			case KILL_LEADER -> kill(this.group.leader().orElseGet(this::pick));
			case KILL_DURING_DRAIN -> {
				Leave leave = leave(pick(), Optional.empty());
				awaitLearnersOf(leave, Duration.ofSeconds(30));
				kill(this.group.leader().filter((leader) -> !leader.equals(leave.instanceId))
					.orElseGet(() -> pickOtherThan(Optional.of(leave.instanceId))));
			}
			case LEAVE_TWICE -> {
				Leave first = leave(pick(), Optional.empty());
				awaitLearnersOf(first, Duration.ofSeconds(30));
				if (first.outcome == null) {
					first.end("replaced", "asked to leave again", 0);
					leave(first.instanceId, Optional.empty());
				}
			}
			case CUT_DURING_DRAIN -> {
				Leave leave = leave(pick(), Optional.empty());
				awaitLearnersOf(leave, Duration.ofSeconds(30));
				String cutOff = pickOtherThan(Optional.of(leave.instanceId));
				this.targets.add("cut off " + cutOff);
				try (FaultProxy.Fault cut = this.group.cutOff(cutOff)) {
					holdFault(this.settings.session().plusSeconds(4));
				}
			}
			case SLOW_LEADER_DURING_LEAVE -> {
				String leader = this.group.leader().orElseGet(this::pick);
				this.targets.add("slowed " + leader);
				try (FaultProxy.Fault slow = this.group.slow(leader, SLOW_LINK)) {
					Leave leave = leave(pickOtherThan(Optional.of(leader)), Optional.empty());
					awaitLearnersOf(leave, this.settings.convergeWithin());
				}
			}
			case CONTROL_CUT_DURING_DRAIN -> {
				Leave leave = leave(pick(), Optional.empty());
				awaitLearnersOf(leave, Duration.ofSeconds(30));
				this.targets.add("control topic cut");
				try (FaultProxy.Fault cut = this.group.cutControlTopic()) {
					holdFault(CONTROL_CUT);
				}
			}
			case SHORT_CUT_DURING_DRAIN -> {
				Leave leave = leave(pick(), Optional.empty());
				awaitLearnersOf(leave, Duration.ofSeconds(30));
				String cutOff = pickOtherThan(Optional.of(leave.instanceId));
				this.targets.add("cut off " + cutOff + " briefly");
				try (FaultProxy.Fault cut = this.group.cutOff(cutOff)) {
					holdFault(this.settings.session().dividedBy(2));
				}
			}
			case SLOW_CALL_DURING_LEAVE -> {
				String slowed = pick();
				this.targets.add("slow call on " + slowed);
				if (!this.group.slowNextRecord(slowed, SLOW_CALL)) {
					fail(slowed + " took no record within a minute of its slow call being armed");
				}
				leave(pickOtherThan(Optional.of(slowed)), Optional.empty());
			}
			case LEAVE_AND_CANCEL_DURING_CONTROL_CUT -> {
				this.targets.add("control topic cut");
				try (FaultProxy.Fault cut = this.group.cutControlTopic()) {
					Leave leave = leave(pick(), Optional.empty());
					holdFault(CONTROL_CUT.dividedBy(2));
					this.group.write(leave.request.cancel("chaos"));
					holdFault(CONTROL_CUT.dividedBy(2));
				}
			}
			case BROKER_BOUNCE_DURING_DRAIN, COORDINATOR_BOUNCE_DURING_DRAIN -> {
				Leave leave = leave(pick(), Optional.empty());
				awaitLearnersOf(leave, Duration.ofSeconds(30));
				int bounced = (this.kind == ChaosEvent.BROKER_BOUNCE_DURING_DRAIN) ? this.group.controlTopicLeader()
						: this.group.coordinator();
				this.targets.add("broker " + bounced + " down " + BROKER_DOWN.toSeconds() + " s");
				this.group.stopBroker(bounced);
				try {
					holdFault(BROKER_DOWN);
				}
				finally {
					this.group.startBroker(bounced);
				}
			}
			case LEAVE_GONE -> {
				// a start whose instance id runs again is the case to get right: the leave names the id that runs
				List<String> gone = new ArrayList<>(this.goneStarts.keySet());
				List<String> runAgain = gone.stream().filter(this.group::isAlive).toList();
				List<String> from = runAgain.isEmpty() ? gone : runAgain;
				String name = from.get(this.random.nextInt(from.size()));
				this.targets.add(name);
				LeaveRecord request = this.group.write(LeaveRecord.request(name, this.goneStarts.get(name),
						Instant.now().truncatedTo(ChronoUnit.MILLIS), Optional.empty(), "chaos"));
				Leave leave = new Leave(name, request, Set.of());
				leave.end("ignored", "its start is gone", 0);
				this.leaves.add(leave);
			}
		}
		boolean settled = awaitSettled();
		Instant end = Instant.now();
		List<Leave> ofEvent = this.leaves.subList(leavesBefore, this.leaves.size());
		Map<TaskId, Long> restoredByTask = this.group.restoredByTask();
		long restoredMeanwhile = restoredByTask.values().stream().mapToLong(Long::longValue).sum()
				- restored.values().stream().mapToLong(Long::longValue).sum();
		checkLeavesOfEvent(ofEvent, restored, restoredByTask);
		Map<String, Long> stalls = new LinkedHashMap<>();
		this.group.longestStalls(start, end).forEach((task, stall) -> stalls.put(task.toString(), stall.toMillis()));
		this.events.add(new ChaosReport.Event(this.index, this.kind.word(), List.copyOf(this.targets),
				Duration.between(start, end).toMillis(), settled, settled ? null : this.notSettledBecause,
				stalls.values().stream().mapToLong(Long::longValue).max().orElse(0), stalls, restoredMeanwhile,
				this.group.generation() - generation,
				ofEvent.stream().map(Leave::toOutcome).toList()));
		System.out.printf("chaos event %d/%d %s %s: %s in %d ms, longest stall %d ms, restored %d, rebalances %d, "
				+ "outcomes %s%n", this.index, this.settings.events(), this.kind.word(), this.targets,
				settled ? "settled" : "NOT settled (" + this.notSettledBecause + ")",
				Duration.between(start, end).toMillis(),
				stalls.values().stream().mapToLong(Long::longValue).max().orElse(0), restoredMeanwhile,
				this.group.generation() - generation, ofEvent.stream().map(Leave::toOutcome).toList());
	}

	/**
	 * A leave in a group where nothing else happens, or only slowness and partitions, must hand over to ready
	 * learners: only then is the outcome drained. A leave cancelled before the members could read it must leave the
	 * instance where it was: running, its leave never ended. Where nothing else moves a task, a task restores at
	 * promotion at most what its learner lagged (plus what arrived meanwhile), never its whole state.
	 */
	private void checkLeavesOfEvent(List<Leave> ofEvent, Map<TaskId, Long> before, Map<TaskId, Long> after) {
		checkRunWordsAgainstMembers(ofEvent);
		long bound = 2 * ChaosGroup.ACCEPTABLE_LAG;
		for (Leave leave : ofEvent) {
			Map<String, Long> restored = new TreeMap<>();
			leave.statefulTasks.forEach((task) -> restored.put(task.toString(),
					after.getOrDefault(task, 0L) - before.getOrDefault(task, 0L)));
			leave.restoredIntoItsTasks = restored;
			restored.forEach((task, records) -> {
				if ("drained".equals(leave.outcome) && records > bound) {
					fail("the leave " + leave.request.leaveId() + " of " + leave.instanceId + " ended drained, yet "
							+ records + " records were restored into its task " + task + " at promotion (a ready "
							+ "learner lags at most " + ChaosGroup.ACCEPTABLE_LAG + "): " + restored);
				}
			});
		}
		if (this.kind == ChaosEvent.LEAVE_AND_CANCEL_DURING_CONTROL_CUT) {
			for (Leave leave : ofEvent) {
				Optional<LeaveRecord.Ended> ended = this.group.leaveRecord(leave.instanceId)
					.flatMap(LeaveRecord::ended);
				if (!"cancelled".equals(leave.outcome) || ended.isPresent() || !this.group.isAlive(leave.instanceId)) {
					fail("the leave " + leave.request.leaveId() + " of " + leave.instanceId + " was cancelled before "
							+ "the members could read it, yet it ended " + leave.outcome + " (" + leave.reason
							+ "), its record " + ended.map(LeaveRecord.Ended::outcome).orElse("not ended"));
				}
			}
		}
		else if (WARM_LEAVES.contains(this.kind)) {
			for (Leave leave : ofEvent) {
				if (!"replaced".equals(leave.outcome) && !"drained".equals(leave.outcome)) {
					fail("the leave " + leave.request.leaveId() + " of " + leave.instanceId + " ended " + leave.outcome
							+ " (" + leave.reason + ") in a group where nothing but slowness or a partition happened");
				}
			}
		}
		if (!ONLY_THE_LEAVE_MOVES.contains(this.kind)) {
			return;
		}
		after.forEach((task, total) -> {
			long restored = total - before.getOrDefault(task, 0L);
			if (restored > bound) {
				fail(restored + " records restored into " + task + " at promotion in an event where only the leave "
						+ "moves tasks (a ready learner lags at most " + ChaosGroup.ACCEPTABLE_LAG + ")");
			}
		});
	}

	/**
	 * The run's own words for a leave checked against what the members wrote. A member that ended a leave itself
	 * before the run killed it or asked it again has the last word; a leave of a gone start that a member ended, or
	 * that took an instance running again under that id out of the plan, fails the run.
	 */
	private void checkRunWordsAgainstMembers(List<Leave> ofEvent) {
		for (Leave leave : ofEvent) {
			Optional<LeaveRecord.Ended> ended = this.group.leaveRecord(leave.instanceId)
				.filter((read) -> read.leaveId().equals(leave.request.leaveId()))
				.flatMap(LeaveRecord::ended);
			switch (leave.outcome) {
				case "killed", "replaced" -> ended.ifPresent((byMember) -> leave.end(byMember.outcome(),
						byMember.reason() + " (ended by the member before the run said " + leave.outcome + ")",
						byMember.tasksMovedCold()));
				case "ignored" -> {
					if (ended.isPresent()) {
						fail("the leave " + leave.request.leaveId() + " of a gone start of " + leave.instanceId
								+ " was ended by a member: " + ended.get());
					}
					if (this.group.isAlive(leave.instanceId) && !this.group.staysInPlan(leave.instanceId)) {
						fail("the leave " + leave.request.leaveId() + " of a gone start of " + leave.instanceId
								+ " took the instance running under that id out of the plan");
					}
				}
				default -> {
				}
			}
		}
	}

	/**
	 * Wait until every leave is accounted for and the group settled, and stayed so for a moment.
	 * @return whether it settled within the bound
	 */
	private boolean awaitSettled() {
		AtomicReference<Instant> settledSince = new AtomicReference<>();
		try {
			await().atMost(this.settings.convergeWithin()).pollInterval(Duration.ofMillis(500)).until(() -> {
				Optional<String> why = unsettled();
				this.notSettledBecause = why.orElse(null);
				if (why.isPresent()) {
					settledSince.set(null);
					return false;
				}
				settledSince.compareAndSet(null, Instant.now());
				return !Instant.now().isBefore(settledSince.get().plus(SETTLED_FOR));
			});
			return true;
		}
		catch (ConditionTimeoutException ex) {
			if (this.leaves.stream().anyMatch((leave) -> leave.outcome == null)) {
				fail("a leave without an outcome after " + this.settings.convergeWithin() + ": " + this.notSettledBecause);
			}
			return false;
		}
	}

	private Optional<String> unsettled() {
		List<String> died = this.group.diedByThemselves();
		if (!died.isEmpty()) {
			fail("instances exited by themselves: " + died);
		}
		for (Leave leave : this.leaves) {
			if (leave.outcome == null) {
				account(leave);
			}
		}
		Set<String> asked = new HashSet<>();
		this.leaves.forEach((leave) -> asked.add(leave.request.leaveId()));
		this.group.leaveRecords().values().stream()
			.filter((record) -> !asked.contains(record.leaveId()))
			.forEach((record) -> this.unasked.add(record.instanceId() + " " + record.leaveId() + " (" + record.source()
					+ ")"));
		Optional<Leave> open = this.leaves.stream().filter((leave) -> leave.outcome == null).findFirst();
		if (open.isPresent()) {
			return Optional.of("the leave " + open.get().request.leaveId() + " of " + open.get().instanceId
					+ " has no outcome yet");
		}
		return this.group.notConverged();
	}

	/**
	 * How the member says its leave ended, in its leave record; a member that ended its leave is then shut down, as
	 * its application would be.
	 */
	private void account(Leave leave) {
		Optional<LeaveRecord> record = this.group.leaveRecord(leave.instanceId)
			.filter((read) -> read.incarnation().equals(leave.request.incarnation()));
		if (record.isEmpty()) {
			return;
		}
		LeaveRecord read = record.get();
		if (read.ended().isPresent()) {
			// an earlier leave of the same start may have ended first: the member was closing when asked again
			LeaveRecord.Ended ended = read.ended().get();
			leave.end(ended.outcome(), ended.reason() + (read.leaveId().equals(leave.request.leaveId()) ? ""
					: " (of its leave " + read.leaveId() + ")"), ended.tasksMovedCold());
			if (this.group.isAlive(leave.instanceId)) {
				remember(leave.instanceId);
				if (!this.group.terminate(leave.instanceId)) {
					fail(leave.instanceId + " did not exit within a minute of SIGTERM after its leave ended");
				}
			}
			return;
		}
		// a cancel may come after the member decided to hand over: it counts once the plan shows it staying
		if (read.cancelled() && read.leaveId().equals(leave.request.leaveId()) && this.group.staysInPlan(leave.instanceId)) {
			leave.end("cancelled", "cancelled while its learners warmed up", 0);
		}
	}

	private Leave leave(String name, Optional<Duration> timeout) {
		this.targets.add(name + " (" + this.group.learnerRebalance(name) + ")");
		Set<TaskId> stateful = this.group.statefulTasksOf(name);
		Leave leave = new Leave(name, this.group.leave(name, timeout), stateful);
		this.leaves.add(leave);
		return leave;
	}

	private void awaitLearnersOf(Leave leave, Duration bound) {
		try {
			await().atMost(bound).pollInterval(Duration.ofMillis(100)).until(() -> {
				account(leave);
				return leave.outcome != null || this.group.learnersPlacedFor(leave.instanceId);
			});
		}
		catch (ConditionTimeoutException ex) {
			fail("no learners placed for " + leave.instanceId + " within " + bound);
		}
	}

	/**
	 * Keep a fault in place this long: its length is what the event is about.
	 */
	private static void holdFault(Duration length) {
		try {
			Thread.sleep(length.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void kill(String name) {
		this.targets.add(name);
		remember(name);
		this.group.kill(name);
		this.leaves.stream()
			.filter((leave) -> leave.instanceId.equals(name) && leave.outcome == null)
			.forEach((leave) -> leave.end("killed", "killed while leaving", leave.statefulTasks.size()));
	}

	private void remember(String name) {
		this.group.incarnationOf(name).ifPresent((incarnation) -> this.goneStarts.put(name, incarnation));
	}

	private String pick() {
		List<String> alive = this.group.alive();
		return alive.get(this.random.nextInt(alive.size()));
	}

	private String pickOtherThan(Optional<String> spared) {
		List<String> others = new ArrayList<>(this.group.alive());
		spared.ifPresent(others::remove);
		return others.get(this.random.nextInt(others.size()));
	}

	private void fail(String what) {
		throw new AssertionError("chaos: event #" + this.index + " (" + this.kind.word() + " " + this.targets
				+ "), seed " + this.settings.seed() + ": " + what + "\n  replay: -Dchaos.seed=" + this.settings.seed()
				+ " -Dchaos.events=" + this.settings.events() + "\n  group: " + this.group.describe());
	}

	/**
	 * A leave the run asked for, and how it ended.
	 */
	private static final class Leave {

		private final String instanceId;

		private final LeaveRecord request;

		private final Set<TaskId> statefulTasks;

		private String outcome;

		private String reason;

		private int tasksMovedCold;

		private Map<String, Long> restoredIntoItsTasks = Map.of();

		Leave(String instanceId, LeaveRecord request, Set<TaskId> statefulTasks) {
			this.instanceId = instanceId;
			this.request = request;
			this.statefulTasks = statefulTasks;
		}

		void end(String outcome, String reason, int tasksMovedCold) {
			this.outcome = outcome;
			this.reason = reason;
			this.tasksMovedCold = tasksMovedCold;
		}

		ChaosReport.Outcome toOutcome() {
			return new ChaosReport.Outcome(this.instanceId, this.request.leaveId(), this.outcome, this.reason,
					this.tasksMovedCold, this.restoredIntoItsTasks);
		}

	}

}
