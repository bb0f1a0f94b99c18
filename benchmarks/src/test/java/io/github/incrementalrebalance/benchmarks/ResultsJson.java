package io.github.incrementalrebalance.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Availability results as data: {@code benchmarks/target/results/<scenario>-<timings>.json}, one file per scenario
 * and group timings (the last run's). The runs the README quotes are committed under {@code benchmarks/results/}, and
 * {@link BenchmarkCharts} draws the README's charts from them.
 */
public final class ResultsJson {

	static final Path DIRECTORY = Path.of("target", "results");

	private static final JsonMapper mapper = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

	private ResultsJson() {
	}

	/**
	 * Write one run of a scenario.
	 * @param directory where
	 * @param scenario the scenario's name
	 * @param settings the run's size and group timings
	 * @param results one per strategy, in the order they ran
	 * @return the file
	 */
	static Path write(Path directory, String scenario, BenchmarkGroup.Settings settings,
			List<AvailabilityResult> results) {
		return write(directory, scenario, settings, settings.describe(), results);
	}

	/**
	 * As {@link #write(Path, String, BenchmarkGroup.Settings, List)}, the settings told in the run's own words.
	 * @param description what the run's settings were
	 */
	static Path write(Path directory, String scenario, BenchmarkGroup.Settings settings, String description,
			List<AvailabilityResult> results) {
		Run run = new Run(scenario, settings.timings(), Instant.now().toString(), description,
				settings.keysPerTask(), results.stream().map(Entry::of).toList());
		Path file = directory.resolve(scenario + "-" + settings.timings() + ".json");
		writeValue(file, run);
		return file;
	}

	/**
	 * Write the results of a run, stamped with the commit they were measured on ({@code commit}, first), the JVM and
	 * the machine's cores.
	 * @param file where
	 * @param value its results, as records
	 */
	public static void writeValue(Path file, Object value) {
		ObjectNode stamped = mapper.createObjectNode()
			.put("commit", commit())
			.put("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"))
			.put("cores", Runtime.getRuntime().availableProcessors());
		stamped.setAll((ObjectNode) mapper.valueToTree(value));
		try {
			Files.createDirectories(file.getParent());
			mapper.writeValue(file.toFile(), stamped);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * The commit the benchmarks run on: the checkout's {@code HEAD}, with {@code -dirty} when a tracked file differs
	 * from it, so that a published figure can be traced to the code it measured.
	 * @return the commit, or {@code unknown} outside a git checkout
	 */
	static String commit() {
		String head = git("rev-parse", "HEAD");
		if (head.isEmpty()) {
			return "unknown";
		}
		return git("status", "--porcelain", "--untracked-files=no").isEmpty() ? head : head + "-dirty";
	}

	private static String git(String... args) {
		List<String> command = new ArrayList<>(List.of("git"));
		command.addAll(List.of(args));
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
			return (process.waitFor() == 0) ? output : "";
		}
		catch (IOException ex) {
			return "";
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return "";
		}
	}

	/**
	 * The median of some values, the mean of the middle two for an even count.
	 * @param values the values, in any order
	 * @return their median
	 */
	static long median(List<Long> values) {
		List<Long> sorted = values.stream().sorted().toList();
		int middle = sorted.size() / 2;
		return (sorted.size() % 2 == 1) ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
	}

	/**
	 * A results file as a tree, whatever wrote it.
	 * @param file the file
	 * @return its JSON
	 * @throws UncheckedIOException naming the file when it cannot be read
	 */
	static JsonNode readTree(Path file) {
		try {
			return mapper.readTree(file.toFile());
		}
		catch (RuntimeException ex) {
			throw new UncheckedIOException(new IOException("cannot read " + file, ex));
		}
	}

	static Run read(Path file) {
		return read(file, Run.class);
	}

	static SteadyState.Run readSteadyState(Path file) {
		return read(file, SteadyState.Run.class);
	}

	static <T> T read(Path file, Class<T> type) {
		return mapper.readValue(file.toFile(), type);
	}

	/**
	 * A results file read as a tree, as its record.
	 * @param tree the file's JSON
	 * @param type the record
	 * @return the record
	 */
	static <T> T treeToValue(JsonNode tree, Class<T> type) {
		return mapper.treeToValue(tree, type);
	}

	/**
	 * One run of a scenario.
	 * @param scenario its name
	 * @param timings {@code kafka} (heartbeat 3 s, session 45 s) or {@code test} (500 ms, 6 s)
	 * @param at when it ended
	 * @param settings the run's size, for people
	 * @param keysPerTask records of state per task
	 * @param results one per strategy and round, in the order they ran
	 */
	@JsonIgnoreProperties({ "commit", "jvm", "cores" })
	record Run(String scenario, String timings, String at, String settings, int keysPerTask, List<Entry> results) {

		/**
		 * The median over the rounds of each strategy's longest stall of the moved tasks.
		 * @return seconds by strategy, in the order the strategies first ran
		 */
		Map<String, Double> medianMovedStallSeconds() {
			Map<String, List<Long>> stalls = new LinkedHashMap<>();
			this.results.forEach((entry) -> stalls.computeIfAbsent(entry.strategy(), (key) -> new ArrayList<>())
				.add(entry.movedStallMs()));
			Map<String, Double> medians = new LinkedHashMap<>();
			stalls.forEach((strategy, millis) -> medians.put(strategy, median(millis) / 1000.0));
			return medians;
		}

		String timingsLabel() {
			return "kafka".equals(this.timings) ? "heartbeat 3 s / session 45 s" : "heartbeat 500 ms / session 6 s";
		}

	}

	/**
	 * What one strategy measured.
	 * @param strategy the strategy's id
	 * @param movedStallMs longest stall of the tasks that moved
	 * @param otherStallMs longest stall of the other tasks
	 * @param p99LatencyMs 99th percentile latency of the moved tasks' markers
	 * @param otherP99LatencyMs the same for the other tasks
	 * @param untilDoneMs from the change until the new owners ran the moved tasks
	 * @param restoredAtPromotion records restored into the moved tasks on their new owners
	 * @param rebalances rebalances an instance that stayed went through
	 * @param tasksMoved tasks that changed owner
	 * @param timeline where the time went: each step's moment after the change's start
	 */
	record Entry(String strategy, long movedStallMs, long otherStallMs, long p99LatencyMs, long otherP99LatencyMs,
			long untilDoneMs, long restoredAtPromotion, long rebalances, int tasksMoved, List<Timeline.Step> timeline) {

		static Entry of(AvailabilityResult result) {
			return new Entry(result.strategy().id(), result.movedGap().toMillis(), result.unmovedGap().toMillis(),
					result.movedP99().toMillis(), result.unmovedP99().toMillis(), result.complete().toMillis(),
					result.restored(), result.rebalances(), result.tasksMoved(), result.timeline());
		}

	}

}
