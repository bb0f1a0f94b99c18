package io.github.incrementalrebalance.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import tools.jackson.databind.JsonNode;

/**
 * The tables of {@code benchmarks/README.md} that committed results files hold, made from those files rather than
 * typed: each sits between {@code <!-- table: NAME -->} and {@code <!-- end table -->}, and {@link #rewrite} puts
 * there what the results under {@code results/} say. {@code ReadmeTablesTests} fails the build when a table and its
 * results disagree, and writes them with {@code -Dbenchmark.tables.write=true}.
 */
final class ReadmeTables {

	private static final Pattern BLOCK = Pattern.compile("(<!-- table: ([a-z0-9-]+) -->\\n)(.*?)(<!-- end table -->)",
			Pattern.DOTALL);

	/** What each strategy of an availability run is, as the tables name it. */
	private static final Map<String, String> STRATEGIES = Map.of("kafka-default",
			"`kafka-default` (Spring's close: no leave-group)", "kafka-tuned",
			"`kafka-tuned` (real leave-group, no learners)", "kafka-standby",
			"`kafka-standby` (tuned + one standby per task, caught up: twice the state)", "learner-eager",
			"`learner-eager`", "learner-conservative", "`learner-conservative`", "streams-close",
			"`streams-close` (Kafka Streams' close with a leave-group)", "streams-standby",
			"`streams-standby` (close + one caught-up standby per task)", "streams-drain",
			"`streams-drain` (hands over once both others hold a ready standby)");

	/** The chaos run the benchmarks page tables: 50 events without network faults, at 500 ms heartbeats. */
	static final String CHAOS = "chaos-50-events-500ms.json";

	/** The chaos run with network faults at Kafka's default group timings. */
	static final String CHAOS_FAULTS = "chaos-faults-100-events-kafka-defaults.json";

	/** The chaos run on three brokers, with network faults and broker bounces, at Kafka's default group timings. */
	static final String CHAOS_THREE_BROKERS = "chaos-three-brokers-faults-100-events-kafka-defaults.json";

	/** The chaos run's event kinds as the tables name them, in the order they list them. */
	private static final Map<String, String> CHAOS_EVENTS = chaosEvents();

	private static final Map<String, Function<Path, String>> TABLES = new TreeMap<>(Map.ofEntries(
			Map.entry("scale-down", ReadmeTables::scaleDown), Map.entry("scale-up", ReadmeTables::scaleUp),
			Map.entry("host-swap", ReadmeTables::hostSwap),
			Map.entry("streams-scale-down", ReadmeTables::streamsScaleDown),
			Map.entry("rack-cost", ReadmeTables::rackCost), Map.entry("assignor-scale", ReadmeTables::assignorScale),
			Map.entry("control-topic-scale", ReadmeTables::controlTopicScale),
			Map.entry("control-topic-history", ReadmeTables::controlTopicHistory),
			Map.entry("hand-over-steps", ReadmeTables::handOverSteps), Map.entry("state-size", ReadmeTables::stateSize),
			Map.entry("scale-out", ReadmeTables::scaleOut),
			Map.entry("chaos", (results) -> chaos(results.resolve(CHAOS))),
			Map.entry("chaos-faults", (results) -> chaos(results.resolve(CHAOS_FAULTS))),
			Map.entry("chaos-three-brokers", (results) -> chaos(results.resolve(CHAOS_THREE_BROKERS)))));

	private ReadmeTables() {
	}

	/**
	 * The README with every table block made again from the results.
	 * @param readme the README's text
	 * @param results the directory of the committed results files
	 * @return the text, the same where every table agrees with its results
	 */
	static String rewrite(String readme, Path results) {
		Matcher block = BLOCK.matcher(readme);
		StringBuilder rewritten = new StringBuilder();
		while (block.find()) {
			Function<Path, String> table = TABLES.get(block.group(2));
			if (table == null) {
				throw new IllegalArgumentException("no table named '" + block.group(2) + "'; known: " + TABLES.keySet());
			}
			block.appendReplacement(rewritten,
					Matcher.quoteReplacement(block.group(1) + table.apply(results) + block.group(4)));
		}
		block.appendTail(rewritten);
		return rewritten.toString();
	}

	/**
	 * The scale-down, repeated at both group timings: per strategy, the median and the range over the rounds of the
	 * leaving instance's tasks' stall and of the records restored at promotion, and the median stall of the others.
	 */
	static String scaleDown(Path results) {
		return atBothTimings(results, "scale-down", Map.of(), "| strategy | rounds, 3 s / 500 ms | stall of the leaving "
				+ "instance's tasks, Kafka's heartbeat 3 s / session 45 s, median (range) | the same, heartbeat 500 ms / "
				+ "session 6 s | stall of the other tasks, median, 3 s / 500 ms | records restored at promotion, median "
				+ "(range), 3 s / 500 ms | rebalances of a survivor, median, 3 s |\n|---|---|---|---|---|---|---|",
				(slow, fast) -> secondsSpread(slow, "movedStallMs") + " | " + secondsSpread(fast, "movedStallMs") + " | "
						+ medianSeconds(slow, "otherStallMs") + " / " + medianSeconds(fast, "otherStallMs") + " | "
						+ recordsSpread(slow, "restoredAtPromotion") + " / " + recordsSpread(fast, "restoredAtPromotion")
						+ " | " + ResultsJson.median(values(slow, "rebalances")));
	}

	/**
	 * The scale-up, repeated at both group timings: per strategy, the median and the range over the rounds of the time
	 * until the new instance runs its share, and the median stalls of the tasks that moved to it and of the others.
	 */
	static String scaleUp(Path results) {
		return atBothTimings(results, "scale-up", Map.of("kafka-tuned",
				"`kafka-tuned` (Kafka's warm-ups, probing every minute)", "kafka-standby",
				"`kafka-standby` (tuned + one standby per task)"), "| strategy | rounds, 3 s / 500 ms | until the new "
						+ "instance runs its share, Kafka's heartbeat 3 s / session 45 s, median (range) | the same, "
						+ "heartbeat 500 ms / session 6 s | stall of the moved tasks, median, 3 s / 500 ms | stall of the "
						+ "other tasks, median, 3 s / 500 ms | records restored at promotion, median, 3 s / 500 ms |\n"
						+ "|---|---|---|---|---|---|---|",
				(slow, fast) -> secondsSpread(slow, "untilDoneMs") + " | " + secondsSpread(fast, "untilDoneMs") + " | "
						+ medianSeconds(slow, "movedStallMs") + " / " + medianSeconds(fast, "movedStallMs") + " | "
						+ medianSeconds(slow, "otherStallMs") + " / " + medianSeconds(fast, "otherStallMs") + " | "
						+ grouped(ResultsJson.median(values(slow, "restoredAtPromotion"))) + " / "
						+ grouped(ResultsJson.median(values(fast, "restoredAtPromotion"))));
	}

	/**
	 * The host swap, repeated at both group timings: every task moves, so per strategy the median and the range over
	 * the rounds of the longest stall of any task and of the records restored at promotion.
	 */
	static String hostSwap(Path results) {
		return atBothTimings(results, "host-swap",
				Map.of("kafka-standby",
						"`kafka-standby` (tuned + one standby per task, as Kafka places them given 3 min)"),
				"| strategy | rounds, 3 s / 500 ms | longest stall of any task, Kafka's heartbeat 3 s / session 45 s, "
						+ "median (range) | the same, heartbeat 500 ms / session 6 s | records restored at promotion, "
						+ "median (range), 3 s / 500 ms |\n|---|---|---|---|---|",
				(slow, fast) -> secondsSpread(slow, "movedStallMs") + " | " + secondsSpread(fast, "movedStallMs") + " | "
						+ recordsSpread(slow, "restoredAtPromotion") + " / " + recordsSpread(fast, "restoredAtPromotion"));
	}

	/**
	 * A scenario's table from its runs at Kafka's timings and at the test timings: one row per strategy, named as the
	 * scenario runs it, its rounds at each, then the cells a scenario makes of them.
	 */
	private static String atBothTimings(Path results, String scenario, Map<String, String> names, String header,
			BiFunction<List<JsonNode>, List<JsonNode>, String> cells) {
		Map<String, List<JsonNode>> kafka = allByStrategy(results.resolve(scenario + "-kafka.json"));
		Map<String, List<JsonNode>> test = allByStrategy(results.resolve(scenario + "-test.json"));
		List<String> rows = new ArrayList<>(List.of(header));
		kafka.forEach((strategy, slow) -> {
			List<JsonNode> fast = test.get(strategy);
			if (fast == null) {
				throw new IllegalStateException(scenario + "-test.json has no run of " + strategy);
			}
			String name = names.getOrDefault(strategy, STRATEGIES.getOrDefault(strategy, "`" + strategy + "`"));
			rows.add("| " + name + " | " + slow.size() + " / "
					+ fast.size() + " | " + cells.apply(slow, fast) + " |");
		});
		return String.join("\n", rows) + "\n";
	}

	/**
	 * The scale-down under the streams protocol, repeated: per strategy, the median and the range over the rounds of
	 * the leaving instance's tasks' stall and of the records restored at promotion.
	 */
	static String streamsScaleDown(Path results) {
		Map<String, List<JsonNode>> runs = allByStrategy(results.resolve("streams-scale-down-kafka.json"));
		List<String> rows = new ArrayList<>();
		rows.add("| strategy | rounds | stall of the leaving instance's tasks, median (range) | records restored at "
				+ "promotion, median (range) |");
		rows.add("|---|---|---|---|");
		runs.forEach((strategy, rounds) -> rows.add("| " + STRATEGIES.getOrDefault(strategy, "`" + strategy + "`")
				+ " | " + rounds.size() + " | " + secondsSpread(rounds, "movedStallMs") + " | "
				+ recordsSpread(rounds, "restoredAtPromotion") + " |"));
		return String.join("\n", rows) + "\n";
	}

	/**
	 * Where the moved tasks' stall of a drain goes: the conservative drain's median round at Kafka's timings, its
	 * timeline cut at the steps of a hand-over, each step's time from the one before (a step its timeline has before
	 * the one before counts nothing). Offsets are from the leave request.
	 */
	static String handOverSteps(Path results) {
		List<JsonNode> rounds = new ArrayList<>(allByStrategy(results.resolve("scale-down-kafka.json"))
			.get("learner-conservative"));
		rounds.sort(Comparator.comparingLong((round) -> round.get("movedStallMs").asLong()));
		JsonNode median = rounds.get(rounds.size() / 2);
		Map<String, Long> at = new LinkedHashMap<>();
		median.get("timeline").forEach((step) -> at.merge(step.get("name").asString(), step.get("atMs").asLong(),
				Math::max));
		String leaver = at.keySet().stream().filter((name) -> name.endsWith(" leaving")).findFirst()
			.map((name) -> name.substring(0, name.indexOf(' ')))
			.orElseThrow(() -> new IllegalStateException("the median round's timeline has no leaving instance"));
		long lastOnOld = required(at, "moved tasks' last record on their old owner");
		List<JsonNode> afterLast = new ArrayList<>();
		median.get("timeline").forEach((step) -> {
			if (step.get("atMs").asLong() >= lastOnOld) {
				afterLast.add(step);
			}
		});
		long roundBegins = afterLast.stream().filter((step) -> step.get("name").asString().endsWith(" rebalancing"))
			.mapToLong((step) -> step.get("atMs").asLong()).min()
			.orElseThrow(() -> new IllegalStateException("no rebalance after the moved tasks' last record"));
		long drained = required(at, leaver + " drained");
		long closed = required(at, leaver + " closed");
		long read = at.entrySet().stream().filter((step) -> step.getKey().startsWith(leaver + " out of the group"))
			.mapToLong(Map.Entry::getValue).findFirst()
			.orElseThrow(() -> new IllegalStateException("no survivor read " + leaver + "'s end"));
		long running = afterLast.stream().filter((step) -> step.get("atMs").asLong() >= Math.min(read, closed))
			.filter((step) -> step.get("name").asString().endsWith(" running")
					&& !step.get("name").asString().startsWith(leaver + " "))
			.mapToLong((step) -> step.get("atMs").asLong()).max()
			.orElseThrow(() -> new IllegalStateException("no survivor ran after " + leaver + "'s end"));
		long firstOnNew = required(at, "moved tasks' first record on their new owner (the last of them)");
		List<String> rows = new ArrayList<>(List.of("| step | at | share of the moved tasks' "
				+ median.get("movedStallMs").asLong() + " ms stall |", "|---|---|---|"));
		long[] previous = { lastOnOld };
		BiFunction<String, Long, String> row = (step, when) -> {
			long share = Math.max(0, when - previous[0]);
			previous[0] = Math.max(previous[0], when);
			return "| " + step + " | +" + String.format(Locale.ROOT, "%.3f", when / 1000.0) + " s | " + share + " ms |";
		};
		rows.add(row.apply("learners ready; the hand-over round begins (the leaver's last record at +"
				+ String.format(Locale.ROOT, "%.3f", lastOnOld / 1000.0) + " s)", roundBegins));
		rows.add(row.apply("hand-over decided (" + leaver + " drained)", drained));
		rows.add(row.apply("Kafka Streams closed on the leaver (its last commit under exactly-once, its LeaveGroup)",
				closed));
		rows.add(row.apply("its end read by a survivor, which rejoins at once", read));
		rows.add(row.apply("the survivors' JoinGroup and SyncGroup, then the last moved task made active", running));
		rows.add(row.apply("first record of the moved tasks on their new owners (a fetch past the leaver's "
				+ "transaction marker)", firstOnNew));
		return String.join("\n", rows) + "\n";
	}

	private static long required(Map<String, Long> at, String step) {
		Long when = at.get(step);
		if (when == null) {
			throw new IllegalStateException("the median round's timeline has no step '" + step + "'");
		}
		return when;
	}

	/**
	 * The scale-down's state-size sweep at Kafka's timings: per size of state, each strategy's median stall of the
	 * leaving instance's tasks with its range over the rounds, and how many times longer a real leave-group stalls
	 * them than the learners.
	 */
	static String stateSize(Path results) {
		Map<Long, Map<String, List<JsonNode>>> bySize = new TreeMap<>();
		try (Stream<Path> files = Files.list(results)) {
			files.filter((file) -> file.getFileName().toString().matches("state-size-[0-9]+-kafka\\.json"))
				.forEach((file) -> bySize.put(ResultsJson.readTree(file).get("keysPerTask").asLong(),
						allByStrategy(file)));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		List<String> rows = new ArrayList<>(List.of("| records of state per task | rounds | `kafka-tuned` (real "
				+ "leave-group) | `kafka-standby` (one caught-up standby per task) | `learner-conservative` | records "
				+ "restored at promotion, median: tuned / standby / learners | a real leave-group's stall over the "
				+ "learners' |", "|---|---|---|---|---|---|---|"));
		bySize.forEach((size, runs) -> {
			List<JsonNode> tuned = runs.get("kafka-tuned");
			List<JsonNode> standby = runs.get("kafka-standby");
			List<JsonNode> learners = runs.get("learner-conservative");
			double over = ResultsJson.median(values(tuned, "movedStallMs"))
					/ (double) ResultsJson.median(values(learners, "movedStallMs"));
			rows.add("| " + grouped(size) + " | " + learners.size() + " | " + secondsSpread(tuned, "movedStallMs")
					+ " | " + secondsSpread(standby, "movedStallMs") + " | " + secondsSpread(learners, "movedStallMs")
					+ " | " + grouped(ResultsJson.median(values(tuned, "restoredAtPromotion"))) + " / "
					+ grouped(ResultsJson.median(values(standby, "restoredAtPromotion"))) + " / "
					+ grouped(ResultsJson.median(values(learners, "restoredAtPromotion"))) + " | " + times(over) + " |");
		});
		return String.join("\n", rows) + "\n";
	}

	/**
	 * The scale-outs: per scale-out and strategy, the tasks moved against the fewest that even the shares out, the
	 * old instances' rebalances, the time until every instance runs its share and the moved tasks' stall, medians
	 * with their range over the rounds.
	 */
	static String scaleOut(Path results) {
		List<String> rows = new ArrayList<>(List.of("| scale-out | strategy | rounds | tasks moved, median (the fewest "
				+ "that even the shares out) | rebalances of an old instance, median | until balanced, median (range) | "
				+ "stall of the moved tasks, median (range) | records restored at promotion, median |",
				"|---|---|---|---|---|---|---|---|"));
		for (String scaleOut : List.of("3-4", "4-6")) {
			Path file = results.resolve("scale-out-" + scaleOut + "-kafka.json");
			Matcher tasks = Pattern.compile("^(\\d+) tasks").matcher(ResultsJson.readTree(file).get("settings").asString());
			if (!tasks.find()) {
				throw new IllegalStateException(file + " does not say how many tasks it ran");
			}
			String[] counts = scaleOut.split("-");
			int before = Integer.parseInt(counts[0]);
			int after = Integer.parseInt(counts[1]);
			int fewest = Integer.parseInt(tasks.group(1)) / after * (after - before);
			allByStrategy(file).forEach((strategy, rounds) -> rows.add("| " + before + " -> " + after + " | `"
					+ strategy + "` | " + rounds.size() + " | " + ResultsJson.median(values(rounds, "tasksMoved")) + " ("
					+ fewest + ") | " + ResultsJson.median(values(rounds, "rebalances")) + " | "
					+ secondsSpread(rounds, "untilDoneMs") + " | " + secondsSpread(rounds, "movedStallMs") + " | "
					+ grouped(ResultsJson.median(values(rounds, "restoredAtPromotion"))) + " |"));
		}
		return String.join("\n", rows) + "\n";
	}

	/**
	 * A chaos run's report: what it ran and found in a line, then per kind of event how many it applied, the
	 * longest stall of any task per event (p50, p99 and max over those events), the records restored at promotion in
	 * all of them, the rebalances per event and how the leaves ended.
	 */
	static String chaos(Path file) {
		JsonNode report = ResultsJson.readTree(file);
		Map<String, List<JsonNode>> byKind = new TreeMap<>();
		report.get("eventLog").forEach((event) -> byKind.computeIfAbsent(event.get("kind").asString(),
				(kind) -> new ArrayList<>()).add(event));
		JsonNode commit = report.get("commit");
		List<String> rows = new ArrayList<>(List.of("Seed " + report.get("seed").asLong() + ", "
				+ report.get("events").asInt() + " events, heartbeat " + grouped(report.get("heartbeatMs").asLong())
				+ " ms, session " + grouped(report.get("sessionMs").asLong()) + " ms"
				+ ((commit != null) ? ", at " + commit.asString().substring(0, 7) : ", before reports carried a commit")
				+ ": " + report.get("lost").asLong() + " records lost, " + report.get("duplicated").asLong()
				+ " duplicated, settled after " + report.get("converged").asInt() + " of " + report.get("events").asInt()
				+ " events, " + report.get("unaskedLeaves").asInt() + " unasked leaves; the leaves ended "
				+ counts(outcomes(report.get("eventLog"))) + ".", "", "| event | count | longest stall of any task per event, "
						+ "p50 / p99 / max | records restored at promotion, all its events | rebalances per event, "
						+ "median | the leaves |", "|---|---|---|---|---|---|"));
		List<String> kinds = new ArrayList<>(CHAOS_EVENTS.keySet());
		byKind.keySet().stream().filter((kind) -> !CHAOS_EVENTS.containsKey(kind)).forEach(kinds::add);
		for (String kind : kinds) {
			List<JsonNode> events = byKind.get(kind);
			if (events == null) {
				continue;
			}
			JsonNode stall = report.get("stallMs").get(kind);
			rows.add("| " + CHAOS_EVENTS.getOrDefault(kind, "`" + kind + "`") + " | " + events.size() + " | "
					+ seconds(stall.get("p50").asLong()).replace(" s", "") + " / "
					+ seconds(stall.get("p99").asLong()).replace(" s", "") + " / " + seconds(stall.get("max").asLong())
					+ " | " + grouped(report.get("restoredAtPromotion").get(kind).asLong()) + " | "
					+ ResultsJson.median(events.stream().map((event) -> event.get("rebalances").asLong()).toList())
					+ " | " + counts(outcomes(events)) + " |");
		}
		return String.join("\n", rows) + "\n";
	}

	/** Counts by name as the chaos tables write them: {@code drained 3, replaced 3}; none, a dash. */
	private static String counts(Map<String, Integer> counts) {
		return counts.isEmpty() ? "-"
				: counts.entrySet().stream().map((count) -> count.getKey() + " " + count.getValue())
					.collect(Collectors.joining(", "));
	}

	/** How the leaves of some chaos events ended: outcome to count. */
	private static Map<String, Integer> outcomes(Iterable<JsonNode> events) {
		Map<String, Integer> outcomes = new TreeMap<>();
		events.forEach((event) -> event.get("outcomes")
			.forEach((outcome) -> outcomes.merge(outcome.get("outcome").asString(), 1, Integer::sum)));
		return outcomes;
	}

	/**
	 * What the chaos tables say of each kind of event, in their order; a kind with nothing to say maps to "".
	 */
	private static Map<String, String> chaosEvents() {
		String[][] notes = { { "leave", "no deadline" }, { "leave-with-deadline", "3 min" },
				{ "leave-twice", "asked again while leaving" }, { "leave-then-cancel", "" },
				{ "host-swap", "1-2 new, then as many old leave at once" }, { "start", "" },
				{ "restart", "SIGTERM, started again in place; a leave for the start before: ignored" },
				{ "leave-gone", "a leave for a start that is gone: ignored" },
				{ "control-cut-during-drain", "every control client cut 20 s" },
				{ "leave-and-cancel-during-control-cut", "both written during a 20 s cut" },
				{ "slow-call-during-leave", "another member's stream thread stuck 15 s: its own tasks stall" },
				{ "slow-leader-during-leave", "a second each way" },
				{ "short-cut-during-drain", "another member cut off half its session: its own tasks stall" },
				{ "cut-during-drain", "another member cut off past its session: its own tasks restore" },
				{ "broker-bounce-during-drain", "the control topic's leader stopped 20 s" },
				{ "coordinator-bounce-during-drain", "the group's coordinator stopped 20 s" },
				{ "leave-with-short-deadline", "300 ms: forced" }, { "close", "SIGTERM: a plain leave" },
				{ "kill", "`kill -9`" }, { "kill-leader", "" },
				{ "kill-during-drain", "the leaver still drained; the killed member's tasks restore" } };
		Map<String, String> events = new LinkedHashMap<>();
		for (String[] note : notes) {
			events.put(note[0], "`" + note[0] + "`" + (note[1].isEmpty() ? "" : " (" + note[1] + ")"));
		}
		return events;
	}

	/**
	 * The cross-rack traffic cost: every group at both balancing factors, as the run printed it.
	 */
	static String rackCost(Path results) {
		RackCostBenchmark.Run run = ResultsJson.read(results.resolve("rack-cost.json"), RackCostBenchmark.Run.class);
		List<String> rows = new ArrayList<>(List.of(RackCostBenchmark.HEADER));
		run.results().forEach((result) -> rows.add(result.row()));
		return String.join("\n", rows) + "\n";
	}

	/**
	 * One assignment at scale: per group, the learner assignor's median time, Kafka's sticky assignor's (with its
	 * runs when fewer than the usual five fit in the budget) and how many times faster or slower the learners are.
	 */
	static String assignorScale(Path results) {
		AssignorScale.Run run = ResultsJson.read(results.resolve(AssignorScale.Run.FILE), AssignorScale.Run.class);
		Map<AssignorScale.Size, Map<String, AssignorScale.Result>> bySize = new LinkedHashMap<>();
		run.results().forEach((result) -> bySize.computeIfAbsent(result.size(), (size) -> new LinkedHashMap<>())
			.put(result.assignor(), result));
		List<String> rows = new ArrayList<>(List.of("| group (one instance just crashed) | learner | Kafka sticky | "
				+ "learner against Kafka |", "|---|---:|---:|---|"));
		bySize.forEach((size, byAssignor) -> {
			AssignorScale.Result learner = byAssignor.get("learner");
			AssignorScale.Result sticky = byAssignor.get("kafka-sticky");
			if (sticky == null) {
				rows.add("| " + size + " | " + millis(learner.median()) + " | not run | |");
				return;
			}
			String runs = switch (sticky.runs()) {
				case 1 -> " (one run)";
				case 5 -> "";
				default -> " (" + sticky.runs() + " runs)";
			};
			double ratio = sticky.median().toNanos() / (double) learner.median().toNanos();
			String against = (ratio >= 1) ? times(ratio) + " faster" : times(1 / ratio) + " slower";
			rows.add("| " + size + " | " + millis(learner.median()) + " | " + millis(sticky.median()) + runs + " | "
					+ against + " |");
		});
		return String.join("\n", rows) + "\n";
	}

	/**
	 * The control topic with a live group of each size, as the run printed it.
	 */
	static String controlTopicScale(Path results) {
		ControlTopicScale.Run run = controlTopicRun(results);
		List<String> rows = new ArrayList<>(List.of(ControlTopicScale.Result.header()));
		run.results().forEach((result) -> rows.add(result.row()));
		return String.join("\n", rows) + "\n";
	}

	/**
	 * A start over the control topic's history, as the run printed it.
	 */
	static String controlTopicHistory(Path results) {
		ControlTopicScale.Run run = controlTopicRun(results);
		List<String> rows = new ArrayList<>(List.of(ControlTopicScale.History.header()));
		run.histories().forEach((history) -> rows.add(history.row()));
		return String.join("\n", rows) + "\n";
	}

	private static ControlTopicScale.Run controlTopicRun(Path results) {
		return ResultsJson.read(results.resolve(ControlTopicScale.Run.FILE), ControlTopicScale.Run.class);
	}

	/** Three significant figures at most, in the README's groups of digits: {@code 98.3 ms}, {@code 228 999 ms}. */
	private static String millis(Duration duration) {
		double millis = duration.toNanos() / 1_000_000.0;
		return ((millis < 100) ? String.format(Locale.ROOT, "%.1f", millis) : grouped(Math.round(millis))) + " ms";
	}

	private static String times(double ratio) {
		return String.format(Locale.ROOT, (ratio < 10) ? "%.1fx" : "%,.0fx", ratio).replace(',', ' ');
	}

	private static List<Long> values(List<JsonNode> rounds, String field) {
		return rounds.stream().map((run) -> run.get(field).asLong()).sorted().toList();
	}

	private static String medianSeconds(List<JsonNode> rounds, String field) {
		return seconds(ResultsJson.median(values(rounds, field)));
	}

	/** The median of a field over the rounds, and its range: {@code 2.4 s (1.6-4.9 s)}; one round, its value. */
	private static String secondsSpread(List<JsonNode> rounds, String field) {
		List<Long> sorted = values(rounds, field);
		String median = seconds(ResultsJson.median(sorted));
		return (sorted.size() == 1) ? median
				: median + " (" + seconds(sorted.get(0)).replace(" s", "") + "-" + seconds(sorted.get(sorted.size() - 1))
						+ ")";
	}

	private static String recordsSpread(List<JsonNode> rounds, String field) {
		List<Long> sorted = values(rounds, field);
		String median = grouped(ResultsJson.median(sorted));
		return (sorted.size() == 1) ? median
				: median + " (" + grouped(sorted.get(0)) + "-" + grouped(sorted.get(sorted.size() - 1)) + ")";
	}

	private static Map<String, List<JsonNode>> allByStrategy(Path file) {
		Map<String, List<JsonNode>> results = new LinkedHashMap<>();
		ResultsJson.readTree(file).get("results")
			.forEach((result) -> results.computeIfAbsent(result.get("strategy").asString(), (key) -> new ArrayList<>())
				.add(result));
		return results;
	}


	/** Seconds to a tenth, below one second to a hundredth: a hand-over's 0.16 s is not rounded to 0.2 s. */
	private static String seconds(long millis) {
		return String.format(Locale.ROOT, (millis < 1000) ? "%.2f s" : "%.1f s", millis / 1000.0);
	}

	/** A count as the benchmarks page writes one: groups of three digits apart. */
	static String grouped(long count) {
		return String.format(Locale.ROOT, "%,d", count).replace(',', ' ');
	}

}
