package io.github.incrementalrebalance.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.DoubleStream;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.StreamsInstance;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.TaskId;

import static org.awaitility.Awaitility.await;

/**
 * The counting application in steady state, nothing joining or leaving: what the starter costs when it has nothing
 * to do. Three instances settle; markers flow for a quiet window (their latency from send to processing); then the
 * instances pause, a backlog of count updates is sent, and they resume: throughput is the backlog over the time
 * until the group's committed offsets reach the input's end.
 */
final class SteadyState {

	private final KafkaBroker broker;

	private final int quietMarkersPerTask;

	private final int backlogKeysPerTask;

	/**
	 * @param broker the broker
	 * @param quietMarkersPerTask how long the quiet window lasts, in markers each task processes (20 a second)
	 * @param backlogKeysPerTask keys per task in the backlog, each updated twice
	 */
	SteadyState(KafkaBroker broker, int quietMarkersPerTask, int backlogKeysPerTask) {
		this.broker = broker;
		this.quietMarkersPerTask = quietMarkersPerTask;
		this.backlogKeysPerTask = backlogKeysPerTask;
	}

	Result run(BenchmarkGroup group) {
		StreamsInstance a = group.start("a");
		StreamsInstance b = group.start("b");
		StreamsInstance c = group.start("c");
		group.loadAndSettle(a, b, c);
		Set<TaskId> tasks = StreamsInstance.activeTasksOf(a, b, c);
		Instant quietFrom = Instant.now();
		await("a quiet window of " + this.quietMarkersPerTask + " markers per task").atMost(Duration.ofMinutes(5))
			.until(() -> List.of(a, b, c)
				.stream()
				.allMatch((instance) -> instance.activeTasks()
					.stream()
					.allMatch((task) -> group.gapMeter().processedBy(task, instance.name(),
							quietFrom) >= this.quietMarkersPerTask)));
		Instant quietTo = Instant.now();
		Duration p99 = group.gapMeter().latencyPercentile(tasks, quietFrom, quietTo, 99);
		Duration p50 = group.gapMeter().latencyPercentile(tasks, quietFrom, quietTo, 50);

		group.producer().stopMarkers();
		List.of(a, b, c).forEach((instance) -> instance.kafkaStreams().pause());
		int partitions = group.settings().partitions();
		group.producer().load(partitions, this.backlogKeysPerTask, 2);
		long backlog = 2L * partitions * this.backlogKeysPerTask;
		Map<TopicPartition, Long> ends = endOffsets(group.application().input(), partitions);
		CpuTime before = CpuTime.now();
		Instant resumed = Instant.now();
		List.of(a, b, c).forEach((instance) -> instance.kafkaStreams().resume());
		await("the backlog committed").atMost(Duration.ofMinutes(10))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> committedUpTo(group.application().applicationId(), ends));
		Duration drained = Duration.between(resumed, Instant.now());
		CpuTime after = CpuTime.now();
		group.application().verifyCounts(group.producer());
		return new Result(group.strategy().id(), backlog / (drained.toMillis() / 1000.0), p50.toMillis(),
				p99.toMillis(), drained.toMillis(), after.processNanosSince(before) / 1_000_000,
				// rounded up: the starter's threads idle at well under a millisecond in a short run
				(after.starterNanosSince(before) + 999_999) / 1_000_000);
	}

	private Map<TopicPartition, Long> endOffsets(String topic, int partitions) {
		Admin admin = this.broker.admin();
		Map<TopicPartition, OffsetSpec> latest = IntStream.range(0, partitions)
			.mapToObj((partition) -> new TopicPartition(topic, partition))
			.collect(Collectors.toMap((partition) -> partition, (partition) -> OffsetSpec.latest()));
		try {
			return admin.listOffsets(latest)
				.all()
				.get()
				.entrySet()
				.stream()
				.collect(Collectors.toMap(Map.Entry::getKey, (entry) -> entry.getValue().offset()));
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not read the end offsets of " + topic, ex);
		}
	}

	/**
	 * Whether the group committed every partition up to its end: under exactly-once the end is past the last record,
	 * by the producer's commit marker, which a committed offset also passes.
	 */
	private boolean committedUpTo(String groupId, Map<TopicPartition, Long> ends) throws Exception {
		Map<TopicPartition, OffsetAndMetadata> committed = this.broker.admin()
			.listConsumerGroupOffsets(groupId)
			.partitionsToOffsetAndMetadata()
			.get();
		return ends.entrySet()
			.stream()
			.allMatch((end) -> committed.get(end.getKey()) != null
					&& committed.get(end.getKey()).offset() >= end.getValue());
	}

	/**
	 * The runs of both strategies, side by side: the median of each, and the starter's over plain Kafka Streams.
	 * @param plainRecordsPerSecond median throughput without the starter
	 * @param starterRecordsPerSecond median throughput with it
	 * @param throughputRatio the second over the first (the goal: at least 0.98)
	 * @param plainP99LatencyMs median p99 latency without the starter
	 * @param starterP99LatencyMs median p99 latency with it
	 * @param p99Ratio the second over the first (the goal: at most 1.10)
	 */
	record Summary(double plainRecordsPerSecond, double starterRecordsPerSecond, double throughputRatio,
			double pairedThroughputRatio, double plainP99LatencyMs, double starterP99LatencyMs, double p99Ratio,
			double starterCpuShare) {

		/**
		 * @param results the runs, two per round (one of each strategy, in either order)
		 */
		static Summary of(List<Result> results) {
			double plainRate = median(of(results, Strategy.KAFKA_DEFAULT).mapToDouble(Result::recordsPerSecond));
			double starterRate = median(of(results, Strategy.LEARNER_CONSERVATIVE)
				.mapToDouble(Result::recordsPerSecond));
			double plainP99 = median(of(results, Strategy.KAFKA_DEFAULT).mapToDouble(Result::p99LatencyMs));
			double starterP99 = median(of(results, Strategy.LEARNER_CONSERVATIVE).mapToDouble(Result::p99LatencyMs));
			// a round's two runs share the machine's state of the moment: their ratio drifts less than the medians
			double paired = median(IntStream.range(0, results.size() / 2).mapToDouble((round) -> {
				List<Result> pair = results.subList(2 * round, 2 * round + 2);
				return rate(pair, Strategy.LEARNER_CONSERVATIVE) / rate(pair, Strategy.KAFKA_DEFAULT);
			}));
			double cpuShare = median(of(results, Strategy.LEARNER_CONSERVATIVE)
				.mapToDouble((result) -> (double) result.starterCpuMs() / result.processCpuMs()));
			return new Summary(plainRate, starterRate, starterRate / plainRate, paired, plainP99, starterP99,
					starterP99 / plainP99, cpuShare);
		}

		private static Stream<Result> of(List<Result> results, Strategy strategy) {
			return results.stream().filter((result) -> result.strategy().equals(strategy.id()));
		}

		private static double rate(List<Result> pair, Strategy strategy) {
			return of(pair, strategy).mapToDouble(Result::recordsPerSecond).findFirst().orElseThrow();
		}

		/**
		 * The median of some runs' values: the middle one, or the mean of the two middle ones.
		 */
		static double median(DoubleStream stream) {
			double[] values = stream.sorted().toArray();
			return (values.length % 2 == 1) ? values[values.length / 2]
					: (values[values.length / 2 - 1] + values[values.length / 2]) / 2;
		}

		String describe() {
			return String.format("Medians: throughput %,.0f records/s without the starter, %,.0f with it (%.3fx; "
					+ "%.3fx as the median of each round's ratio); p99 latency %.0f ms and %.0f ms (%.2fx); the "
					+ "starter's own threads used %.2f%% of the process's CPU while the backlog was processed",
					this.plainRecordsPerSecond, this.starterRecordsPerSecond, this.throughputRatio,
					this.pairedThroughputRatio, this.plainP99LatencyMs, this.starterP99LatencyMs, this.p99Ratio,
					100 * this.starterCpuShare);
		}

	}

	/**
	 * CPU time used so far: by the whole process (the broker, the three instances, the producer), and by each of the
	 * starter's own threads (control-topic readers and probes, the members' checks), which are named
	 * {@code incremental-rebalance-*}, and by the network threads of its control-topic clients (the admin client the
	 * probe asks with, the writer's producer), whose names carry their client ids ({@code <app>-rebalance-control-*}).
	 * A thread's time counts from the first reading it was alive at, so a thread of an earlier run that ends meanwhile
	 * takes nothing away from this run's.
	 */
	record CpuTime(long processNanos, Map<Long, Long> starterNanosByThread) {

		static CpuTime now() {
			ThreadMXBean threads = ManagementFactory.getThreadMXBean();
			Map<Long, Long> starter = new HashMap<>();
			for (ThreadInfo thread : threads.getThreadInfo(threads.getAllThreadIds())) {
				if (thread != null && (thread.getThreadName().startsWith("incremental-rebalance")
						|| thread.getThreadName().contains("-rebalance-control-"))) {
					starter.put(thread.getThreadId(), Math.max(0, threads.getThreadCpuTime(thread.getThreadId())));
				}
			}
			long process = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
				.getProcessCpuTime();
			return new CpuTime(process, starter);
		}

		long processNanosSince(CpuTime earlier) {
			return this.processNanos - earlier.processNanos;
		}

		long starterNanosSince(CpuTime earlier) {
			long used = 0;
			for (Map.Entry<Long, Long> thread : this.starterNanosByThread.entrySet()) {
				used += Math.max(0, thread.getValue() - earlier.starterNanosByThread.getOrDefault(thread.getKey(), 0L));
			}
			return used;
		}

	}

	/**
	 * What {@code steady-state-<timings>.json} holds.
	 * @param settings the runs' size, for people
	 * @param results every run, in the order they ran
	 * @param summary the medians and ratios
	 */
	@JsonIgnoreProperties("commit")
	record Run(String settings, List<Result> results, Summary summary) {
	}

	/**
	 * One steady-state run.
	 * @param strategy the strategy's id
	 * @param recordsPerSecond backlog records processed (and committed) per second
	 * @param p50LatencyMs median latency of the markers in the quiet window
	 * @param p99LatencyMs 99th percentile latency of the markers in the quiet window
	 * @param backlogMs until the backlog was committed
	 * @param processCpuMs CPU time the whole test process used meanwhile
	 * @param starterCpuMs CPU time the starter's own threads used meanwhile (none without the starter)
	 */
	record Result(String strategy, double recordsPerSecond, long p50LatencyMs, long p99LatencyMs, long backlogMs,
			long processCpuMs, long starterCpuMs) {

		String row() {
			return String.format("| %s | %,.0f records/s | %d ms | %d ms | %.1f s | %,d ms of %,d ms |", this.strategy,
					this.recordsPerSecond, this.p50LatencyMs, this.p99LatencyMs, this.backlogMs / 1000.0,
					this.starterCpuMs, this.processCpuMs);
		}

		static String header() {
			return "| strategy | throughput (backlog) | p50 latency (quiet) | p99 latency (quiet) | backlog done in "
					+ "| CPU of the starter's threads, of the process |\n|---|---|---|---|---|---|";
		}

	}

}
