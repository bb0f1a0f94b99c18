package io.github.incrementalrebalance.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The tables of {@code benchmarks/README.md} that committed results files hold, made from those files rather than
 * typed: each sits between {@code <!-- table: NAME -->} and {@code <!-- end table -->}, and {@link #rewrite} puts
 * there what the results under {@code results/} say. {@code ReadmeTablesTests} fails the build when a table and its
 * results disagree, and writes them with {@code -Dbenchmark.tables.write=true}.
 */
final class ReadmeTables {

	private static final Pattern BLOCK = Pattern.compile("(<!-- table: ([a-z0-9-]+) -->\\n)(.*?)(<!-- end table -->)",
			Pattern.DOTALL);

	private static final JsonMapper mapper = JsonMapper.builder().build();

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
			ReadmeTables::scaleDown, "streams-scale-down", ReadmeTables::streamsScaleDown));

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
	 * The scale-down: per strategy, the leaving instance's tasks' stall at both group timings, the other tasks'
	 * stall, the records restored at promotion and a survivor's rebalances.
	 */
	static String scaleDown(Path results) {
		Map<String, JsonNode> kafka = byStrategy(results.resolve("scale-down-kafka.json"));
		Map<String, JsonNode> test = byStrategy(results.resolve("scale-down-test.json"));
		List<String> rows = new ArrayList<>();
		rows.add("| strategy | stall of the leaving instance's tasks, Kafka's heartbeat 3 s / session 45 s | the same, "
				+ "heartbeat 500 ms / session 6 s | stall of the other tasks, 3 s / 500 ms | records restored at "
				+ "promotion, 3 s / 500 ms | rebalances of a survivor, 3 s |");
		rows.add("|---|---|---|---|---|---|");
		kafka.forEach((strategy, slow) -> {
			JsonNode fast = test.get(strategy);
			if (fast == null) {
				throw new IllegalStateException("scale-down-test.json has no run of " + strategy);
			}
			rows.add("| " + STRATEGIES.getOrDefault(strategy, "`" + strategy + "`") + " | "
					+ seconds(slow, "movedStallMs") + " | " + seconds(fast, "movedStallMs") + " | "
					+ seconds(slow, "otherStallMs") + " / " + seconds(fast, "otherStallMs") + " | "
					+ records(slow, "restoredAtPromotion") + " / " + records(fast, "restoredAtPromotion") + " | "
					+ slow.get("rebalances").asInt() + " |");
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
		runs.forEach((strategy, rounds) -> {
			List<Long> stalls = rounds.stream().map((run) -> run.get("movedStallMs").asLong()).sorted().toList();
			List<Long> restored = rounds.stream().map((run) -> run.get("restoredAtPromotion").asLong()).sorted().toList();
			rows.add("| " + STRATEGIES.getOrDefault(strategy, "`" + strategy + "`") + " | " + rounds.size() + " | "
					+ seconds(median(stalls)) + " (" + seconds(stalls.get(0)) + "-" + seconds(stalls.get(stalls.size() - 1))
					+ ") | " + records(median(restored)) + " (" + records(restored.get(0)) + "-"
					+ records(restored.get(restored.size() - 1)) + ") |");
		});
		return String.join("\n", rows) + "\n";
	}

	private static long median(List<Long> sorted) {
		int middle = sorted.size() / 2;
		return (sorted.size() % 2 == 1) ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
	}

	private static Map<String, List<JsonNode>> allByStrategy(Path file) {
		Map<String, List<JsonNode>> results = new LinkedHashMap<>();
		read(file).get("results")
			.forEach((result) -> results.computeIfAbsent(result.get("strategy").asString(), (key) -> new ArrayList<>())
				.add(result));
		return results;
	}

	private static JsonNode read(Path file) {
		try {
			return mapper.readTree(file.toFile());
		}
		catch (RuntimeException ex) {
			throw new UncheckedIOException(new IOException("cannot read " + file, ex));
		}
	}

	private static Map<String, JsonNode> byStrategy(Path file) {
		Map<String, JsonNode> results = new LinkedHashMap<>();
		read(file).get("results").forEach((result) -> results.put(result.get("strategy").asString(), result));
		return results;
	}

	private static String seconds(JsonNode result, String field) {
		return seconds(result.get(field).asLong());
	}

	private static String seconds(long millis) {
		return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
	}

	private static String records(JsonNode result, String field) {
		return records(result.get(field).asLong());
	}

	/** A count as the README writes one: groups of three digits apart. */
	private static String records(long count) {
		return String.format(Locale.ROOT, "%,d", count).replace(',', ' ');
	}

}
