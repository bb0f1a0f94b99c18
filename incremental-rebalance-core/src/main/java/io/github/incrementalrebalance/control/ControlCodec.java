package io.github.incrementalrebalance.control;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

import io.github.incrementalrebalance.planner.HandOverReason;
import io.github.incrementalrebalance.planner.Learner;
import io.github.incrementalrebalance.planner.MemberPlan;
import io.github.incrementalrebalance.planner.RebalancingMode;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.streams.errors.TaskIdFormatException;
import org.apache.kafka.streams.processor.TaskId;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads and writes the control topic's records: string keys, versioned JSON values. A value this version cannot
 * read fails with a {@link MalformedControlRecordException} that says what is wrong. What a newer version may add is
 * read in part: its extra fields are ignored, a record of a kind this version does not know fails with an
 * {@link UnknownControlRecordKindException} (readers skip it), a plan's mode this version does not know reads as
 * {@code incremental} (the mode is shown, not acted on) and a hand-over reason it does not know as
 * {@link HandOverReason#NOT_KNOWN} (the member hands over as told).
 */
public final class ControlCodec {

	/**
	 * 3: a plan record's task sets and learner lags are packed ({@link PackedTasks}), a set with a named topology's task
	 * excepted; sets written as arrays of task ids, as version 2 wrote them, are still read. So are a progress
	 * record's learners, which are also read as an array of objects.
	 * 2: leaves carry their identity ({@code leaveId}) and how they ended ({@code ended}); plans echo the leave they act
	 * on ({@code leave}), carry the group generation and are keyed by the member's start; a member asks the others to
	 * rejoin with {@code rejoin/<id>}, says which mode it runs in its plan ({@code mode}) and publishes its learners'
	 * progress with {@code progress/<id>/<incarnation>}.
	 */
	static final int VERSION = 3;

	/** The oldest version this reader reads. */
	static final int OLDEST_READ = 2;

	private static final JsonMapper mapper = JsonMapper.shared();

	/** The kinds of record this version reads: a key of another kind is a newer version's. */
	private static final Set<String> KINDS = Set.of(LeaveRecord.KEY_PREFIX, PlanRecord.KEY_PREFIX,
			RejoinRequest.KEY_PREFIX, ProgressRecord.KEY_PREFIX, PlanEpoch.KEY);

	private ControlCodec() {
	}

	/**
	 * The header a leader's tombstones carry: the generation of the plan they were written with, so that one arriving
	 * late, after a newer plan, is known for what it is (a tombstone has no value to say so).
	 */
	static final String PLAN_GENERATION_HEADER = "plan-generation";

	static List<Header> planGenerationHeader(int generation) {
		return List.of(new PlanGeneration(Integer.toString(generation).getBytes(StandardCharsets.UTF_8)));
	}

	/**
	 * The plan generation a tombstone was written with.
	 * @param headers the record's headers
	 * @return the generation, empty for a tombstone written without a plan (an operator's, a member's own)
	 */
	static OptionalInt planGeneration(Headers headers) {
		Header header = headers.lastHeader(PLAN_GENERATION_HEADER);
		if (header == null || header.value() == null) {
			return OptionalInt.empty();
		}
		try {
			return OptionalInt.of(Integer.parseInt(new String(header.value(), StandardCharsets.UTF_8)));
		}
		catch (NumberFormatException ex) {
			return OptionalInt.empty();
		}
	}

	public static byte[] encodeKey(String key) {
		return key.getBytes(StandardCharsets.UTF_8);
	}

	public static String decodeKey(byte[] key) {
		return (key != null) ? new String(key, StandardCharsets.UTF_8) : "";
	}

	/**
	 * The value of a record.
	 * @param record the record
	 * @return its JSON
	 */
	public static byte[] encodeValue(ControlRecord record) {
		ObjectNode node = mapper.createObjectNode();
		node.put("v", VERSION);
		if (record instanceof LeaveRecord leave) {
			node.put("incarnation", leave.incarnation());
			node.put("leaveId", leave.leaveId());
			node.put("requestedAt", leave.requestedAt().toEpochMilli());
			leave.deadline().ifPresent((deadline) -> node.put("deadline", deadline.toEpochMilli()));
			node.put("source", leave.source());
			if (leave.cancelled()) {
				node.put("cancelled", true);
			}
			leave.ended().ifPresent((ended) -> {
				ObjectNode how = node.putObject("ended");
				how.put("outcome", ended.outcome());
				how.put("reason", ended.reason());
				how.put("tasksMovedCold", ended.tasksMovedCold());
			});
		}
		else if (record instanceof PlanRecord planRecord) {
			MemberPlan plan = planRecord.plan();
			node.put("incarnation", plan.incarnation());
			node.put("generation", planRecord.generation());
			tasks(node, "active", plan.active());
			learning(node, plan.learning().values());
			tasks(node, "ready", plan.readyLearners());
			tasks(node, "beingLearned", plan.beingLearned());
			tasks(node, "standby", plan.standby());
			node.put("leaving", plan.leaving());
			plan.leaveId().ifPresent((leaveId) -> node.put("leave", leaveId));
			plan.handOver().ifPresent((reason) -> node.put("handOver", reason.name()));
			node.put("mode", plan.mode().name().toLowerCase(Locale.ROOT));
		}
		else if (record instanceof RejoinRequest rejoin) {
			node.put("incarnation", rejoin.incarnation());
			node.put("generation", rejoin.generation());
			node.put("reason", rejoin.reason());
			node.put("at", rejoin.at().toEpochMilli());
		}
		else if (record instanceof ProgressRecord progress) {
			node.put("incarnation", progress.incarnation());
			node.put("at", progress.at().toEpochMilli());
			learnerProgress(node, progress.learners());
		}
		else if (record instanceof PlanEpoch epoch) {
			node.put("generation", epoch.generation());
			node.put("replaces", epoch.replaces());
			node.put("at", epoch.at().toEpochMilli());
			node.put("leader", epoch.leader());
			node.put("summary", epoch.summary());
			strings(node.putArray("duplicateInstanceIds"), epoch.duplicateInstanceIds());
			if (!epoch.application().isEmpty()) {
				node.put("application", epoch.application());
			}
		}
		return mapper.writeValueAsBytes(node);
	}

	/**
	 * Read a record.
	 * @param key the record key
	 * @param value the value, null for a tombstone
	 * @return the record, empty for a tombstone
	 * @throws MalformedControlRecordException when the key is unknown or the value cannot be read
	 */
	public static Optional<ControlRecord> decode(String key, byte[] value) {
		boolean leave = isStartKey(key, LeaveRecord.KEY_PREFIX);
		boolean plan = isStartKey(key, PlanRecord.KEY_PREFIX);
		boolean rejoin = key.startsWith(RejoinRequest.KEY_PREFIX) && key.length() > RejoinRequest.KEY_PREFIX.length();
		boolean progress = isStartKey(key, ProgressRecord.KEY_PREFIX);
		if (!leave && !plan && !rejoin && !progress && !PlanEpoch.KEY.equals(key)) {
			String expected = " (expected leave/<id>/<incarnation>, plan/<id>/<incarnation>, rejoin/<id>, "
					+ "progress/<id>/<incarnation> or " + PlanEpoch.KEY + ")";
			int slash = key.indexOf('/');
			String kind = (slash < 0) ? key : key.substring(0, slash + 1);
			if (KINDS.contains(kind)) {
				throw new MalformedControlRecordException("unknown key '" + key + "'" + expected);
			}
			throw new UnknownControlRecordKindException(kind, "unknown key '" + key + "'" + expected);
		}
		if (value == null) {
			return Optional.empty();
		}
		JsonNode node;
		try {
			node = mapper.readTree(value);
		}
		catch (JacksonException ex) {
			throw new MalformedControlRecordException("value of '" + key + "' is not JSON: " + ex.getMessage());
		}
		if (node == null || !node.isObject()) {
			throw new MalformedControlRecordException("value of '" + key + "' is not a JSON object");
		}
		checkVersion(key, requiredLong(key, node, "v").intValue());
		if (leave) {
			String instanceId = instanceOf(key, LeaveRecord.KEY_PREFIX);
			Instant requestedAt = Instant.ofEpochMilli(requiredLong(key, node, "requestedAt"));
			return Optional.of(new LeaveRecord(instanceId, requiredText(key, node, "incarnation"),
					requiredText(key, node, "leaveId"), requestedAt,
					optionalLong(key, node, "deadline").map(Instant::ofEpochMilli),
					Optional.ofNullable(node.get("source")).map((text) -> text.asString("")).orElse("unknown"),
					node.path("cancelled").asBoolean(false), ended(key, node)));
		}
		if (rejoin) {
			return Optional.of(new RejoinRequest(key.substring(RejoinRequest.KEY_PREFIX.length()),
					requiredText(key, node, "incarnation"), requiredLong(key, node, "generation").intValue(),
					Optional.ofNullable(node.get("reason")).map((text) -> text.asString("")).orElse(""),
					Instant.ofEpochMilli(requiredLong(key, node, "at"))));
		}
		if (progress) {
			return Optional.of(new ProgressRecord(instanceOf(key, ProgressRecord.KEY_PREFIX),
					requiredText(key, node, "incarnation"), Instant.ofEpochMilli(requiredLong(key, node, "at")),
					learnerProgress(key, node)));
		}
		if (plan) {
			String instanceId = instanceOf(key, PlanRecord.KEY_PREFIX);
			SortedMap<TaskId, Learner> learning = learning(key, node, tasks(key, node, "ready"));
			Optional<HandOverReason> handOver = Optional.ofNullable(node.get("handOver"))
				.map((text) -> text.asString(""))
				.map(ControlCodec::handOverReason);
			boolean leaving = node.path("leaving").asBoolean(false);
			Optional<String> leaveId = optionalText(key, node, "leave");
			if (leaving != leaveId.isPresent()) {
				throw new MalformedControlRecordException("value of '" + key + "' has leaving " + leaving + " and "
						+ leaveId.map((id) -> "leave " + id).orElse("no leave")
						+ ": a plan names the leave it acts on ('leave') exactly when its member is leaving");
			}
			MemberPlan memberPlan = new MemberPlan(instanceId, requiredText(key, node, "incarnation"),
					tasks(key, node, "active"), learning, tasks(key, node, "beingLearned"), tasks(key, node, "standby"),
					leaving, leaveId, handOver, mode(key, node));
			return Optional.of(new PlanRecord(memberPlan, requiredLong(key, node, "generation").intValue()));
		}
		Instant at = Instant.ofEpochMilli(requiredLong(key, node, "at"));
		int replaces = requiredLong(key, node, "replaces").intValue();
		return Optional.of(new PlanEpoch(requiredLong(key, node, "generation").intValue(), replaces,
				requiredText(key, node, "leader"), at,
				Optional.ofNullable(node.get("summary")).map((text) -> text.asString("")).orElse(""),
				strings(node, "duplicateInstanceIds"), optionalText(key, node, "application").orElse("")));
	}

	/**
	 * Whether a key names a member's start under a prefix: {@code <prefix><instance-id>/<incarnation>}.
	 */
	private static boolean isStartKey(String key, String prefix) {
		return key.startsWith(prefix) && key.indexOf('/', prefix.length()) > prefix.length();
	}

	private static String instanceOf(String key, String prefix) {
		return key.substring(prefix.length(), key.indexOf('/', prefix.length()));
	}

	static void checkVersion(String key, int version) {
		if (version < OLDEST_READ) {
			throw new MalformedControlRecordException("value of '" + key + "' has version " + version
					+ ", which no release wrote: this reader reads version " + OLDEST_READ + " and later");
		}
	}

	private static Optional<LeaveRecord.Ended> ended(String key, JsonNode node) {
		JsonNode ended = node.get("ended");
		if (ended == null || ended.isNull()) {
			return Optional.empty();
		}
		if (!ended.isObject()) {
			throw new MalformedControlRecordException("value of '" + key + "' has a non-object 'ended'");
		}
		return Optional.of(new LeaveRecord.Ended(requiredText(key, ended, "outcome"), requiredText(key, ended, "reason"),
				requiredLong(key, ended, "tasksMovedCold").intValue()));
	}

	/**
	 * The learners of a progress record: packed as a plan's are (tasks, lags, rates in thousandths of a record a second,
	 * the ready ones, ETAs in milliseconds plus one, zero for none), so that a member learning tens of thousands of
	 * tasks still writes one record far below the topic's largest message; one object per learner when a task is not
	 * one {@link PackedTasks} can pack.
	 */
	private static void learnerProgress(ObjectNode node, List<ProgressRecord.LearnerProgress> learners) {
		Optional<List<TaskId>> ids = packableTasks(learners);
		if (ids.isPresent()) {
			List<Integer> order = new ArrayList<>();
			for (int i = 0; i < learners.size(); i++) {
				order.add(i);
			}
			order.sort(Comparator.comparing(ids.get()::get));
			ObjectNode packed = node.putObject("learners");
			packed.put("tasks", PackedTasks.pack(ids.get()));
			packed.put("lags", PackedTasks.pack(order.stream().mapToLong((i) -> learners.get(i).lag()).toArray()));
			packed.put("rates", PackedTasks.pack(order.stream()
				.mapToLong((i) -> Math.round(learners.get(i).recordsPerSecond() * 1_000))
				.toArray()));
			packed.put("ready", PackedTasks.pack(order.stream()
				.filter((i) -> learners.get(i).ready())
				.map(ids.get()::get)
				.toList()));
			packed.put("etas", PackedTasks.pack(order.stream()
				.mapToLong((i) -> learners.get(i).eta().map((eta) -> eta.toMillis() + 1).orElse(0L))
				.toArray()));
			return;
		}
		ArrayNode array = node.putArray("learners");
		for (ProgressRecord.LearnerProgress learner : learners) {
			ObjectNode entry = array.addObject();
			entry.put("task", learner.task());
			entry.put("lag", learner.lag());
			entry.put("recordsPerSecond", learner.recordsPerSecond());
			entry.put("ready", learner.ready());
			learner.eta().ifPresent((eta) -> entry.put("etaMs", eta.toMillis()));
		}
	}

	/**
	 * The learners' tasks, in their order, when the packed form reads back as written: every task a task id in its
	 * own spelling that {@link PackedTasks} can pack, none twice, no figure below zero.
	 */
	private static Optional<List<TaskId>> packableTasks(List<ProgressRecord.LearnerProgress> learners) {
		List<TaskId> ids = new ArrayList<>();
		for (ProgressRecord.LearnerProgress learner : learners) {
			TaskId id;
			try {
				id = TaskId.parse(learner.task());
			}
			catch (TaskIdFormatException ex) {
				return Optional.empty();
			}
			if (!id.toString().equals(learner.task()) || learner.lag() < 0 || !(learner.recordsPerSecond() >= 0)
					|| learner.eta().filter(Duration::isNegative).isPresent()) {
				return Optional.empty();
			}
			ids.add(id);
		}
		return (PackedTasks.canPack(ids) && new TreeSet<>(ids).size() == ids.size()) ? Optional.of(ids)
				: Optional.empty();
	}

	private static List<ProgressRecord.LearnerProgress> packedLearnerProgress(String key, JsonNode learners) {
		SortedSet<TaskId> tasks = tasks(key, learners, "tasks");
		Set<TaskId> ready = tasks(key, learners, "ready");
		long[] lags;
		long[] rates;
		long[] etas;
		try {
			lags = PackedTasks.unpackLags(learners.path("lags").asString(""), tasks.size());
			rates = PackedTasks.unpackLags(learners.path("rates").asString(""), tasks.size());
			etas = PackedTasks.unpackLags(learners.path("etas").asString(""), tasks.size());
		}
		catch (IllegalArgumentException ex) {
			throw new MalformedControlRecordException("value of '" + key + "' has learners' progress that "
					+ ex.getMessage() + " (expected one packed lag, rate and ETA per task)");
		}
		List<ProgressRecord.LearnerProgress> progress = new ArrayList<>();
		int i = 0;
		for (TaskId task : tasks) {
			progress.add(new ProgressRecord.LearnerProgress(task.toString(), lags[i], rates[i] / 1_000.0,
					ready.contains(task), (etas[i] == 0) ? Optional.empty() : Optional.of(Duration.ofMillis(etas[i] - 1))));
			i++;
		}
		return progress;
	}

	private static List<ProgressRecord.LearnerProgress> learnerProgress(String key, JsonNode node) {
		JsonNode learners = node.get("learners");
		if (learners != null && learners.isObject() && learners.path("tasks").isString()) {
			return packedLearnerProgress(key, learners);
		}
		if (learners == null || !learners.isArray()) {
			throw new MalformedControlRecordException("value of '" + key + "' needs an array field 'learners' or "
					+ "packed ones");
		}
		List<ProgressRecord.LearnerProgress> progress = new ArrayList<>();
		for (JsonNode learner : learners) {
			if (!learner.isObject()) {
				throw new MalformedControlRecordException("value of '" + key + "' has a learner that is not an object");
			}
			JsonNode rate = learner.get("recordsPerSecond");
			if (rate == null || !rate.isNumber()) {
				throw new MalformedControlRecordException("value of '" + key + "' has a learner without a number "
						+ "'recordsPerSecond'");
			}
			progress.add(new ProgressRecord.LearnerProgress(requiredText(key, learner, "task"),
					requiredLong(key, learner, "lag"), rate.asDouble(), learner.path("ready").asBoolean(false),
					optionalLong(key, learner, "etaMs").map(Duration::ofMillis)));
		}
		return progress;
	}

	private static RebalancingMode mode(String key, JsonNode node) {
		// written since version 2 (absent: incremental); a mode of a newer version is shown as incremental
		return optionalText(key, node, "mode").map((mode) -> mode.toUpperCase(Locale.ROOT))
			.filter((mode) -> Arrays.stream(RebalancingMode.values()).anyMatch((known) -> known.name().equals(mode)))
			.map(RebalancingMode::valueOf)
			.orElse(RebalancingMode.INCREMENTAL);
	}

	private static HandOverReason handOverReason(String name) {
		return Arrays.stream(HandOverReason.values())
			.filter((known) -> known != HandOverReason.NOT_KNOWN && known.name().equals(name))
			.findFirst()
			.orElse(HandOverReason.NOT_KNOWN);
	}

	private static void strings(ArrayNode array, List<String> values) {
		values.forEach(array::add);
	}

	private static void tasks(ObjectNode node, String field, Collection<TaskId> tasks) {
		if (PackedTasks.canPack(tasks)) {
			node.put(field, PackedTasks.pack(tasks));
		}
		else {
			ArrayNode array = node.putArray(field);
			tasks.forEach((task) -> array.add(task.toString()));
		}
	}

	private static void learning(ObjectNode node, Collection<Learner> learners) {
		List<TaskId> tasks = learners.stream().map(Learner::task).sorted().toList();
		if (PackedTasks.canPack(tasks)) {
			ObjectNode packed = node.putObject("learning");
			packed.put("tasks", PackedTasks.pack(tasks));
			packed.put("lags", PackedTasks.pack(learners.stream().sorted(Comparator.comparing(Learner::task))
				.mapToLong(Learner::lag).toArray()));
		}
		else {
			ObjectNode learning = node.putObject("learning");
			learners.forEach((learner) -> learning.put(learner.task().toString(), learner.lag()));
		}
	}

	private static SortedSet<TaskId> tasks(String key, JsonNode node, String field) {
		JsonNode value = node.get(field);
		if (value != null && value.isString()) {
			try {
				return PackedTasks.unpackTasks(value.asString());
			}
			catch (IllegalArgumentException ex) {
				throw new MalformedControlRecordException("value of '" + key + "' has a '" + field + "' that "
						+ ex.getMessage() + " (expected an array of task ids or a packed task set)");
			}
		}
		SortedSet<TaskId> tasks = new TreeSet<>();
		strings(node, field).forEach((task) -> tasks.add(task(key, field, task)));
		return tasks;
	}

	private static SortedMap<TaskId, Learner> learning(String key, JsonNode node, Set<TaskId> ready) {
		SortedMap<TaskId, Learner> learning = new TreeMap<>();
		JsonNode learners = node.get("learning");
		if (learners == null || !learners.isObject()) {
			return learning;
		}
		if (learners.path("tasks").isString()) {
			SortedSet<TaskId> tasks = tasks(key, learners, "tasks");
			long[] lags;
			try {
				lags = PackedTasks.unpackLags(learners.path("lags").asString(""), tasks.size());
			}
			catch (IllegalArgumentException ex) {
				throw new MalformedControlRecordException("value of '" + key + "' has learners' 'lags' that "
						+ ex.getMessage() + " (expected one packed lag per task)");
			}
			int i = 0;
			for (TaskId task : tasks) {
				learning.put(task, new Learner(task, lags[i++], ready.contains(task)));
			}
			return learning;
		}
		learners.properties().forEach((entry) -> {
			TaskId task = task(key, "learning", entry.getKey());
			if (!entry.getValue().isIntegralNumber()) {
				throw new MalformedControlRecordException("value of '" + key + "' has a non-integer lag of " + task);
			}
			learning.put(task, new Learner(task, entry.getValue().asLong(), ready.contains(task)));
		});
		return learning;
	}

	private static TaskId task(String key, String field, String task) {
		try {
			return TaskId.parse(task);
		}
		catch (TaskIdFormatException ex) {
			throw new MalformedControlRecordException("value of '" + key + "' has '" + task + "' in '" + field
					+ "', which is not a task id (expected <subtopology>_<partition>, e.g. 0_3)");
		}
	}

	private static List<String> strings(JsonNode node, String field) {
		List<String> values = new ArrayList<>();
		JsonNode array = node.get(field);
		if (array != null && array.isArray()) {
			array.forEach((element) -> values.add(element.asString("")));
		}
		return values;
	}

	private static String requiredText(String key, JsonNode node, String field) {
		JsonNode value = node.get(field);
		if (value == null || !value.isString() || value.asString().isEmpty()) {
			throw new MalformedControlRecordException("value of '" + key + "' needs a text field '" + field + "'");
		}
		return value.asString();
	}

	private static Optional<String> optionalText(String key, JsonNode node, String field) {
		JsonNode value = node.get(field);
		if (value == null || value.isNull()) {
			return Optional.empty();
		}
		if (!value.isString() || value.asString().isEmpty()) {
			throw new MalformedControlRecordException("value of '" + key + "' has a non-text '" + field + "'");
		}
		return Optional.of(value.asString());
	}

	private static Long requiredLong(String key, JsonNode node, String field) {
		return optionalLong(key, node, field).orElseThrow(() -> new MalformedControlRecordException(
				"value of '" + key + "' needs a number field '" + field + "'"));
	}

	private static Optional<Long> optionalLong(String key, JsonNode node, String field) {
		JsonNode value = node.get(field);
		if (value == null || value.isNull()) {
			return Optional.empty();
		}
		if (!value.canConvertToLong() || !value.isIntegralNumber()) {
			throw new MalformedControlRecordException("value of '" + key + "' has a non-integer '" + field + "'");
		}
		return Optional.of(value.asLong());
	}

	private record PlanGeneration(byte[] value) implements Header {

		@Override
		public String key() {
			return PLAN_GENERATION_HEADER;
		}

	}

}
