package io.github.incrementalrebalance.control;

import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.planner.StartId;
import io.github.incrementalrebalance.planner.LeaveRequest;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The latest state of the control topic, built from its records in offset order: one record per key (a tombstone
 * removes it), plans kept per generation. A late write of a former leader (its epoch, or a tombstone of its
 * housekeeping, of a generation older than the plan held) changes nothing, and is counted.
 * <p>
 * Only the thread reading the topic applies records; any thread may query, and sees each record's effect whole.
 */
final class ControlTopicView {

	private static final Logger logger = LoggerFactory.getLogger(ControlTopicView.class);

	private final String topic;

	/** By key, that is by start, with the offset at which that start was first heard of. */
	private final Map<String, ReadLeave> leaves = new ConcurrentHashMap<>();

	private final Map<String, RejoinRequest> rejoins = new ConcurrentHashMap<>();

	/** By key, that is by start, and generation; each decoded only when asked for. */
	private final Map<String, NavigableMap<Integer, ReadPlan>> plans = new ConcurrentHashMap<>();

	private final Map<String, ProgressRecord> progress = new ConcurrentHashMap<>();

	private final AtomicReference<PlanEpoch> epoch = new AtomicReference<>();

	/** Records of a former leader read after a newer plan: ignored here, but the last of their key once compacted. */
	private final AtomicLong lateWrites = new AtomicLong();

	/** The kinds of record of a newer version met so far: each is said once. */
	private final Set<String> unknownKinds = ConcurrentHashMap.newKeySet();

	/** The application reading, when it is known: a plan of another is not this view's. */
	private final Optional<String> application;

	/** The other applications whose plans were read here, in the order first read. */
	private final Set<String> otherApplications = new CopyOnWriteArraySet<>();

	ControlTopicView(String topic) {
		this(topic, Optional.empty());
	}

	ControlTopicView(String topic, Optional<String> application) {
		this.topic = topic;
		this.application = application;
	}

	/**
	 * The applications other than the reading one whose plans this control topic holds: two applications configured
	 * with one control topic, each of whose leaders would delete the other's records.
	 * @return their {@code application.id}s, empty when the topic is this application's alone (or it is not known)
	 */
	Set<String> otherApplications() {
		return Collections.unmodifiableSet(this.otherApplications);
	}

	/**
	 * Whether another application's plans are on this control topic too, and what to do about it.
	 * @return the problem, naming the applications; empty while the topic is this application's alone
	 */
	Optional<String> sharedWith() {
		if (this.otherApplications.isEmpty()) {
			return Optional.empty();
		}
		return Optional.of("control topic " + this.topic + " holds the plans of application "
				+ String.join(", ", this.otherApplications) + " as well as of " + this.application.orElse("this one")
				+ ": give each application a control topic of its own (" + LearnerConfig.CONTROL_TOPIC_CONFIG + ")");
	}

	/**
	 * Apply the next record of the topic.
	 * @param record the record, of a higher offset than every record applied before
	 * @return the record read, when it is one that listeners hear of: not a tombstone, not a malformed record, not a
	 * plan record (read by whoever needs it, from the view), not a plan epoch that a newer one replaced
	 */
	Optional<ControlRecord> apply(ConsumerRecord<byte[], byte[]> record) {
		String key = ControlCodec.decodeKey(record.key());
		Optional<ControlRecord> decoded;
		try {
			if (key.startsWith(PlanRecord.KEY_PREFIX) && record.value() != null) {
				ReadPlan plan = ReadPlan.peek(key, record.value());
				this.plans.compute(key, (k, held) -> {
					NavigableMap<Integer, ReadPlan> byGeneration = (held != null) ? new TreeMap<>(held) : new TreeMap<>();
					byGeneration.put(plan.generation(), plan);
					return Collections.unmodifiableNavigableMap(byGeneration);
				});
				return Optional.empty();
			}
			decoded = ControlCodec.decode(key, record.value());
		}
		catch (UnknownControlRecordKindException ex) {
			if (this.unknownKinds.add(ex.kind())) {
				logger.info("Skipping control records of kind '{}' on {}, first at offset {}: a newer version of the "
						+ "library writes them; this one reads the records it knows around them", ex.kind(), this.topic,
						record.offset());
			}
			return Optional.empty();
		}
		catch (MalformedControlRecordException ex) {
			logger.warn("Skipping control record at offset {} of {}: {}", record.offset(), this.topic,
					ex.getMessage());
			return Optional.empty();
		}
		if (decoded.isEmpty()) {
			if (!lateTombstone(key, record)) {
				remove(key);
			}
			return Optional.empty();
		}
		ControlRecord value = decoded.get();
		if (value instanceof LeaveRecord leave) {
			this.leaves.merge(key, new ReadLeave(leave, record.offset()),
					(held, next) -> new ReadLeave(next.leave(), held.firstOffset()));
		}
		else if (value instanceof RejoinRequest rejoin) {
			this.rejoins.put(rejoin.instanceId(), rejoin);
		}
		else if (value instanceof ProgressRecord learners) {
			this.progress.put(key, learners);
		}
		else if (value instanceof PlanEpoch planEpoch && !adopt(planEpoch, record.offset())) {
			return Optional.empty();
		}
		return decoded;
	}

	/**
	 * Whether a tombstone was written with a plan older than the one held: a former leader's housekeeping, computed
	 * from its old view, that must not erase what the current plan's members wrote since.
	 */
	private boolean lateTombstone(String key, ConsumerRecord<byte[], byte[]> record) {
		OptionalInt generation = ControlCodec.planGeneration(record.headers());
		PlanEpoch held = this.epoch.get();
		if (generation.isEmpty() || held == null || generation.getAsInt() >= held.generation()) {
			return false;
		}
		this.lateWrites.incrementAndGet();
		logger.warn("Ignoring the tombstone of {} at offset {} of {}, written with the plan of generation {}: the plan "
				+ "of generation {} by {} replaced it (a late write of a former leader)", key, record.offset(),
				this.topic, generation.getAsInt(), held.generation(), held.leader());
		return true;
	}

	private void remove(String key) {
		if (key.startsWith(LeaveRecord.KEY_PREFIX)) {
			this.leaves.remove(key);
		}
		else if (key.startsWith(PlanRecord.KEY_PREFIX)) {
			this.plans.remove(key);
		}
		else if (key.startsWith(RejoinRequest.KEY_PREFIX)) {
			this.rejoins.remove(key.substring(RejoinRequest.KEY_PREFIX.length()));
		}
		else if (key.startsWith(ProgressRecord.KEY_PREFIX)) {
			this.progress.remove(key);
		}
	}

	/**
	 * Take a plan epoch unless it is a late write of a former leader, then forget the plan records of other
	 * generations (those of the next plan, written before its epoch, stay).
	 * @return whether it was taken
	 */
	private boolean adopt(PlanEpoch next, long offset) {
		if (next.ofAnotherApplicationThan(this.application)) {
			if (this.otherApplications.add(next.application())) {
				logger.warn("{} (a plan of {} at offset {}); meanwhile this one ignores the other's plans and deletes no "
						+ "record", sharedWith().orElseThrow(), next.application(), offset);
			}
			return false;
		}
		PlanEpoch held = this.epoch.get();
		if (held != null && !next.supersedes(held)) {
			this.lateWrites.incrementAndGet();
			logger.warn("Ignoring the plan of generation {} by {} at offset {} of {}: the plan of generation {} by {} "
					+ "replaced it (a late write of a former leader)", next.generation(), next.leader(), offset,
					this.topic, held.generation(), held.leader());
			return false;
		}
		boolean reset = held != null && next.generation() < held.generation();
		if (reset) {
			logger.info("The group started again at generation {} (its plans were at generation {}): taking the plan "
					+ "of {}", next.generation(), held.generation(), next.leader());
		}
		this.epoch.set(next);
		this.plans.replaceAll((key, byGeneration) -> Collections.unmodifiableNavigableMap(new TreeMap<>(reset
				? byGeneration.subMap(next.generation(), true, next.generation(), true)
				: byGeneration.tailMap(next.generation(), true))));
		return true;
	}

	List<LeaveRequest> leaveRequests() {
		return leaveRecordsOfEveryStart().stream()
			.filter(LeaveRecord::pending)
			.map(LeaveRecord::toLeaveRequest)
			.toList();
	}

	/**
	 * The leave record of an instance that matters now, among those of its starts. While the current plan holds a
	 * start of the instance: that start's record, else an ended one of an earlier start (a pending leave of an
	 * earlier start is stale, and the planner ignores it). While it holds none (the instance left, or has not joined
	 * yet): the record of the start first heard of last, so that neither a pending leave of a start long gone nor the
	 * late end of an earlier start's leave hides the leave of the last start.
	 */
	Optional<LeaveRecord> leaveRecord(String instanceId) {
		return leaveRecord(instanceId, plannedStarts());
	}

	private Optional<LeaveRecord> leaveRecord(String instanceId, Map<String, String> plannedStarts) {
		return mattersNow(this.leaves.values().stream().filter((read) -> read.leave().instanceId().equals(instanceId)),
				plannedStarts.get(instanceId));
	}

	private static Optional<LeaveRecord> mattersNow(Stream<ReadLeave> ofInstance, String planned) {
		Predicate<ReadLeave> matters = (planned == null) ? (read) -> true
				: (read) -> read.leave().incarnation().equals(planned) || !read.leave().pending();
		Comparator<ReadLeave> order = Comparator
			.comparing((ReadLeave read) -> read.leave().incarnation().equals(planned))
			.thenComparingLong(ReadLeave::firstOffset);
		return ofInstance.filter(matters).max(order).map(ReadLeave::leave);
	}

	/** The start of each instance the current plan holds. */
	private Map<String, String> plannedStarts() {
		return plans().stream().collect(Collectors.toMap(PlanRecord::instanceId, PlanRecord::incarnation,
				(first, second) -> first));
	}

	Optional<LeaveRecord> leaveRecord(String instanceId, String incarnation) {
		return Optional.ofNullable(this.leaves.get(LeaveRecord.keyOf(instanceId, incarnation))).map(ReadLeave::leave);
	}

	/**
	 * The leave record of each instance that matters now, as {@link #leaveRecord(String)} picks it: an instance whose
	 * only records are stale requests of earlier starts has none.
	 * @return the records by instance
	 */
	Map<String, LeaveRecord> leaveRecords() {
		Map<String, String> plannedStarts = plannedStarts();
		Map<String, LeaveRecord> records = new HashMap<>();
		this.leaves.values().stream()
			.collect(Collectors.groupingBy((read) -> read.leave().instanceId()))
			.forEach((instanceId, ofInstance) -> mattersNow(ofInstance.stream(), plannedStarts.get(instanceId))
				.ifPresent((record) -> records.put(instanceId, record)));
		return Map.copyOf(records);
	}

	List<LeaveRecord> leaveRecordsOfEveryStart() {
		return this.leaves.values().stream().map(ReadLeave::leave).toList();
	}

	Optional<PlanRecord> plan(String instanceId, String incarnation) {
		PlanEpoch current = this.epoch.get();
		if (current == null) {
			return Optional.empty();
		}
		return Optional.ofNullable(this.plans.get(PlanRecord.keyOf(instanceId, incarnation)))
			.map((byGeneration) -> byGeneration.get(current.generation()))
			.flatMap(ReadPlan::record)
			.filter((plan) -> plan.incarnation().equals(incarnation));
	}

	List<PlanRecord> plans() {
		PlanEpoch current = this.epoch.get();
		if (current == null) {
			return List.of();
		}
		return this.plans.values().stream()
			.map((byGeneration) -> byGeneration.get(current.generation()))
			.filter(Objects::nonNull)
			.flatMap((plan) -> plan.record().stream())
			.sorted(Comparator.comparing(PlanRecord::instanceId).thenComparing(PlanRecord::incarnation))
			.toList();
	}

	List<ProgressRecord> progress() {
		Set<String> starts = plans().stream()
			.map((plan) -> ProgressRecord.keyOf(plan.instanceId(), plan.incarnation()))
			.collect(Collectors.toSet());
		return this.progress.values().stream()
			.filter((record) -> starts.contains(record.key()))
			.sorted(Comparator.comparing(ProgressRecord::instanceId).thenComparing(ProgressRecord::incarnation))
			.toList();
	}

	Optional<ProgressRecord> progressOf(StartId start) {
		return Optional.ofNullable(this.progress.get(ProgressRecord.keyOf(start.instanceId(), start.incarnation())));
	}

	Set<String> progressKeys() {
		return Set.copyOf(this.progress.keySet());
	}

	Map<String, RejoinRequest> rejoinRequests() {
		return Map.copyOf(this.rejoins);
	}

	Set<String> planKeys() {
		return Set.copyOf(this.plans.keySet());
	}

	Optional<PlanEpoch> planEpoch() {
		return Optional.ofNullable(this.epoch.get());
	}

	/**
	 * How many records of a former leader were read after a newer plan, since this view was made.
	 * @return the count
	 */
	long lateWrites() {
		return this.lateWrites.get();
	}

	/**
	 * A start's leave record as last read, and the offset of the first record of that start: a start first heard of
	 * later is the later start.
	 */
	private record ReadLeave(LeaveRecord leave, long firstOffset) {
	}

}
