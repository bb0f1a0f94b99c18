package io.github.incrementalrebalance.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

	private static final Map<String, Function<Path, String>> TABLES = new TreeMap<>(Map.of("scale-down",
			ReadmeTables::scaleDown, "scale-up", ReadmeTables::scaleUp, "host-swap", ReadmeTables::hostSwap,
			"streams-scale-down", ReadmeTables::streamsScaleDown, "rack-cost", ReadmeTables::rackCost,
			"assignor-scale", ReadmeTables::assignorScale, "control-topic-scale", ReadmeTables::controlTopicScale,
			"control-topic-history", ReadmeTables::controlTopicHistory));

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
						"`kafka-standby` (tuned + one standby per task, held by a and b: they leave with them)"),
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
