package io.github.incrementalrebalance.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.github.incrementalrebalance.testkit.GapMeter;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.processor.TaskId;

import static org.awaitility.Awaitility.await;

/**
 * The counting application with nothing to process: what an idle group asks of its broker and what it costs. Three
 * instances settle, the markers stop, and over a window in which no task processes a record the stream threads' main
 * consumers' fetch requests and the process's CPU (the broker's included) are counted. The starter shortens the
 * consumers' {@code fetch.max.wait.ms} and the stream threads' {@code poll.ms}, so that a hand-over is not held
 * behind a long poll of idle partitions; an idle consumer then asks its broker more often and an idle thread wakes
 * more often, and this measures that price: beside plain Kafka Streams, the starter with Kafka's fetch wait and the
 * starter with Kafka's poll tell each apart from what else the starter does.
 */
final class IdleGroup {

	/** A stream thread's main consumer, by its client id; not its restore consumer nor the global one. */
	private static final Pattern MAIN_CONSUMER = Pattern.compile(".*-StreamThread-\\d+-consumer");

	private final Duration window;

	/**
	 * @param window how long the group is watched while idle
	 */
	IdleGroup(Duration window) {
		this.window = window;
	}

	Result run(BenchmarkGroup group, Variant variant) {
		variant.configure(group);
		StreamsInstance a = group.start("a");
		StreamsInstance b = group.start("b");
		StreamsInstance c = group.start("c");
		List<StreamsInstance> instances = List.of(a, b, c);
		group.loadAndSettle(a, b, c);
		Set<TaskId> tasks = StreamsInstance.activeTasksOf(a, b, c);
		group.producer().stopMarkers();
		GapMeter gaps = group.gapMeter();
		await("the last markers processed").atMost(Duration.ofSeconds(30))
			.until(() -> nothingProcessedSince(gaps, tasks, Instant.now().minusSeconds(1)));
		Instant from = Instant.now();
		long fetchesBefore = mainConsumerFetches(instances);
		SteadyState.CpuTime before = SteadyState.CpuTime.now();
		await("an idle window of " + this.window.toMillis() + " ms").during(this.window)
			.atMost(this.window.plusSeconds(5))
			.until(() -> nothingProcessedSince(gaps, tasks, from));
		SteadyState.CpuTime after = SteadyState.CpuTime.now();
		long fetches = mainConsumerFetches(instances) - fetchesBefore;
		double seconds = Duration.between(from, Instant.now()).toMillis() / 1000.0;
		long consumers = instances.stream().mapToLong(IdleGroup::mainConsumers).sum();
		return new Result(variant.name(), consumers, fetches / seconds / consumers,
				after.processNanosSince(before) / 1e6 / seconds, after.starterNanosSince(before) / 1e6 / seconds);
	}

	private static boolean nothingProcessedSince(GapMeter gaps, Set<TaskId> tasks, Instant since) {
		return tasks.stream().allMatch((task) -> gaps.firstProcessedAfter(task, since).isEmpty());
	}

	private static long mainConsumerFetches(List<StreamsInstance> instances) {
		return instances.stream()
			.flatMap(IdleGroup::mainConsumerFetchTotals)
			.mapToLong((metric) -> (long) ((Number) metric.metricValue()).doubleValue())
			.sum();
	}

	private static long mainConsumers(StreamsInstance instance) {
		return mainConsumerFetchTotals(instance).count();
	}

	private static Stream<? extends Metric> mainConsumerFetchTotals(StreamsInstance instance) {
		Map<MetricName, ? extends Metric> metrics = instance.kafkaStreams().metrics();
		return metrics.entrySet()
			.stream()
			.filter((entry) -> entry.getKey().group().equals("consumer-fetch-manager-metrics")
					&& entry.getKey().name().equals("fetch-total")
					&& MAIN_CONSUMER.matcher(entry.getKey().tags().getOrDefault("client-id", "")).matches())
			.map(Map.Entry::getValue);
	}

	/**
	 * How a group of an idle run is configured.
	 * @param name how the results name it
	 * @param strategy plain Kafka Streams or the starter
	 * @param properties Kafka Streams settings on top of the strategy's
	 */
	record Variant(String name, Strategy strategy, Map<String, Object> properties) {

		/** Plain Kafka Streams. */
		static final Variant PLAIN = new Variant(Strategy.KAFKA_DEFAULT.id(), Strategy.KAFKA_DEFAULT, Map.of());

		/** The starter as it comes. */
		static final Variant STARTER = new Variant(Strategy.LEARNER_CONSERVATIVE.id(), Strategy.LEARNER_CONSERVATIVE,
				Map.of());

		/** The starter with the main consumers' fetch wait set back to Kafka's: the price of everything else. */
		static final Variant STARTER_KAFKA_FETCH_WAIT = new Variant(
				Strategy.LEARNER_CONSERVATIVE.id() + ", main.consumer.fetch.max.wait.ms=500",
				Strategy.LEARNER_CONSERVATIVE, Map.of("main.consumer.fetch.max.wait.ms", 500));

		/** The starter with the stream threads' poll set back to Kafka's: what its short poll costs an idle thread. */
		static final Variant STARTER_KAFKA_POLL = new Variant(Strategy.LEARNER_CONSERVATIVE.id() + ", poll.ms=100",
				Strategy.LEARNER_CONSERVATIVE, Map.of("poll.ms", 100));

		BenchmarkGroup configure(BenchmarkGroup group) {
			this.properties.forEach(group::property);
			return group;
		}

	}

	/**
	 * The variants' runs side by side: the median of each.
	 * @param fetchesPerSecond a main consumer's fetch requests a second, per variant
	 * @param processCpuMsPerSecond the process's CPU a second, per variant
	 */
	record Summary(Map<String, Double> fetchesPerSecond, Map<String, Double> processCpuMsPerSecond) {

		static Summary of(List<Result> results) {
			Map<String, Double> fetches = new TreeMap<>();
			Map<String, Double> cpu = new TreeMap<>();
			results.stream().map(Result::variant).distinct().forEach((variant) -> {
				fetches.put(variant, median(results, variant, Result::fetchesPerSecondPerConsumer));
				cpu.put(variant, median(results, variant, Result::processCpuMsPerSecond));
			});
			return new Summary(fetches, cpu);
		}

		private static double median(List<Result> results, String variant, ToDoubleFunction<Result> value) {
			return SteadyState.Summary.median(
					results.stream().filter((result) -> result.variant().equals(variant)).mapToDouble(value));
		}

		/**
		 * @return an idle main consumer's fetches with the starter over plain Kafka Streams'
		 */
		double fetchRatio() {
			return this.fetchesPerSecond.get(Variant.STARTER.name())
					/ this.fetchesPerSecond.get(Variant.PLAIN.name());
		}

		String describe() {
			StringBuilder text = new StringBuilder("Medians, idle:");
			this.fetchesPerSecond.forEach((variant, fetches) -> text.append(String.format(
					"%n- %s: %.1f fetch requests a second per main consumer, %.1f ms of the process's CPU a second",
					variant, fetches, this.processCpuMsPerSecond.get(variant))));
			return text.toString();
		}

	}

	/**
	 * What {@code steady-state-idle-<timings>.json} holds.
	 * @param settings the runs' size, for people
	 * @param window the idle window of each run, in ms
	 * @param results every run, in the order they ran
	 * @param summary the medians and ratios
	 */
	record Run(String settings, long window, List<Result> results, Summary summary) {
	}

	/**
	 * One idle run.
	 * @param variant the variant's name
	 * @param mainConsumers the stream threads' main consumers of the three instances
	 * @param fetchesPerSecondPerConsumer fetch requests a main consumer sent a second
	 * @param processCpuMsPerSecond CPU the whole test process (broker, instances, producer) used a second
	 * @param starterCpuMsPerSecond CPU the starter's own threads used a second (none without the starter)
	 */
	record Result(String variant, long mainConsumers, double fetchesPerSecondPerConsumer,
			double processCpuMsPerSecond, double starterCpuMsPerSecond) {

		String row() {
			return String.format("| %s | %d | %.1f | %.1f ms | %.2f ms |", this.variant, this.mainConsumers,
					this.fetchesPerSecondPerConsumer, this.processCpuMsPerSecond, this.starterCpuMsPerSecond);
		}

		static String header() {
			return "| variant | main consumers | fetch requests a second, each | process CPU a second | "
					+ "the starter's threads' CPU a second |\n|---|---|---|---|---|";
		}

	}

}
