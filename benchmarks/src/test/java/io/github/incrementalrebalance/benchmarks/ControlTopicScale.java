package io.github.incrementalrebalance.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;

import javax.management.JMException;
import javax.management.ObjectName;

import io.github.incrementalrebalance.control.ControlCodec;
import io.github.incrementalrebalance.control.ControlTopic;
import io.github.incrementalrebalance.control.ControlTopicReader;
import io.github.incrementalrebalance.control.ControlTopicWriter;
import io.github.incrementalrebalance.control.PlanEpoch;
import io.github.incrementalrebalance.control.PlanPublisher;
import io.github.incrementalrebalance.control.PlanRecord;
import io.github.incrementalrebalance.planner.Learner;
import io.github.incrementalrebalance.planner.MemberPlan;
import io.github.incrementalrebalance.planner.Plan;
import io.github.incrementalrebalance.planner.RebalancingMode;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.assignment.TaskAssignor.AssignmentError;

/**
 * The control topic at the size of a large group, without Kafka Streams: one reader per member (its own consumer,
 * thread and probe, as an instance runs them), the leader's publisher and writer, on the in-process broker. Every
 * generation moves every task (the worst case for what a rebalance writes): its active copy, its standby copy, and
 * a tenth of the tasks as learners. Measured: the bytes the broker took in and served for the topic per rebalance
 * (its own meters), the time from the leader's publish to the last member having its plan (each reader's listener
 * hears of the epoch, written after the plans, and reads its own plan),
 * the readers' CPU at rest, and a new reader's start over a history of generations.
 */
final class ControlTopicScale {

	private static final Duration CAUGHT_UP = Duration.ofMinutes(5);

	private final KafkaBroker broker;

	ControlTopicScale(KafkaBroker broker) {
		this.broker = broker;
	}

	/**
	 * @param members the group's members
	 * @param tasks its tasks
	 * @param generations how many rebalances are published
	 * @param rest how long the readers' CPU is measured with nothing written
	 * @return what was measured
	 */
	Result live(int members, int tasks, int generations, Duration rest) throws Exception {
		String topic = "control-scale-" + members + "-" + tasks + "-" + UUID.randomUUID();
		ControlTopic.ensureExists(this.broker.admin(), topic, -1, true, Duration.ofSeconds(30));
		List<ControlTopicReader> readers = new ArrayList<>();
		AtomicReference<CountDownLatch> allHaveIt = new AtomicReference<>(new CountDownLatch(0));
		AtomicInteger awaited = new AtomicInteger(-1);
		AtomicIntegerArray arrived = new AtomicIntegerArray(members);
		try {
			for (int member = 0; member < members; member++) {
				ControlTopicReader reader = new ControlTopicReader(config("scale-" + member), topic);
				int index = member;
				// as a member learns of a new plan: the epoch after the plans, then its own plan from the view
				reader.addListener((record) -> {
					if (record instanceof PlanEpoch epoch && epoch.generation() == awaited.get()
							&& reader.plan(member(index), incarnation(index))
								.filter((plan) -> plan.generation() == epoch.generation())
								.isPresent()
							&& arrived.compareAndSet(index, 0, 1)) {
						allHaveIt.get().countDown();
					}
				});
				reader.start();
				readers.add(reader);
			}
			for (ControlTopicReader reader : readers) {
				if (!reader.awaitCaughtUp(CAUGHT_UP)) {
					throw new IllegalStateException("a reader did not read the empty topic in " + CAUGHT_UP);
				}
			}
			long[] latencies = new long[generations];
			long bytesIn = brokerBytes("BytesInPerSec", topic);
			long bytesOut = brokerBytes("BytesOutPerSec", topic);
			try (ControlTopicWriter writer = new ControlTopicWriter(config("scale-leader"), topic)) {
				PlanPublisher publisher = new PlanPublisher(writer, readers.get(0), member(0), Duration.ofMinutes(10),
						Clock.systemUTC(), OptionalLong::empty);
				for (int generation = 1; generation <= generations; generation++) {
					for (int member = 0; member < members; member++) {
						arrived.set(member, 0);
					}
					CountDownLatch latch = new CountDownLatch(members);
					allHaveIt.set(latch);
					awaited.set(generation);
					Plan plan = plan(members, tasks, generation);
					long publishedAt = System.nanoTime();
					publisher.onPlan(plan, AssignmentError.NONE);
					publisher.generationCompleted(generation);
					if (!latch.await(1, TimeUnit.MINUTES)) {
						throw new IllegalStateException(latch.getCount() + " member(s) did not read the plan of "
								+ "generation " + generation + " within a minute");
					}
					latencies[generation - 1] = System.nanoTime() - publishedAt;
				}
			}
			long written = (brokerBytes("BytesInPerSec", topic) - bytesIn) / generations;
			long served = (brokerBytes("BytesOutPerSec", topic) - bytesOut) / generations;
			Arrays.sort(latencies);
			long cpu = readerCpuNanos();
			long restStart = System.nanoTime();
			Thread.sleep(rest.toMillis());
			double cpuShare = (readerCpuNanos() - cpu) / (double) (System.nanoTime() - restStart);
			return new Result(members, tasks, written, served, Duration.ofNanos(latencies[latencies.length / 2]),
					Duration.ofNanos(latencies[latencies.length - 1]), cpuShare);
		}
		finally {
			readers.forEach(ControlTopicReader::close);
			this.broker.admin().deleteTopics(List.of(topic)).all().get();
		}
	}

	/**
	 * @param members the group's members
	 * @param tasks its tasks
	 * @param generations how many generations of plans the topic holds, none compacted away (the topic compacts an
	 * hour's history at most once an hour)
	 * @return what was measured
	 */
	History history(int members, int tasks, int generations) throws Exception {
		String topic = "control-history-" + members + "-" + tasks + "-" + UUID.randomUUID();
		ControlTopic.ensureExists(this.broker.admin(), topic, -1, true, Duration.ofSeconds(30));
		long records = 0;
		try {
			try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
					Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, this.broker.bootstrapServers(),
							ProducerConfig.LINGER_MS_CONFIG, 20, ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024),
					new ByteArraySerializer(), new ByteArraySerializer())) {
				for (int generation = 1; generation <= generations; generation++) {
					for (MemberPlan member : plan(members, tasks, generation).members().values()) {
						PlanRecord record = new PlanRecord(member, generation);
						producer.send(new ProducerRecord<>(topic, 0, ControlCodec.encodeKey(record.key()),
								ControlCodec.encodeValue(record)));
						records++;
					}
					PlanEpoch epoch = new PlanEpoch(generation, generation - 1, member(0), Instant.now(),
							"moved " + tasks + " task(s)", List.of());
					producer.send(new ProducerRecord<>(topic, 0, ControlCodec.encodeKey(epoch.key()),
							ControlCodec.encodeValue(epoch)));
					records++;
				}
			}
			long start = System.nanoTime();
			try (ControlTopicReader reader = new ControlTopicReader(config("history"), topic)) {
				reader.start();
				if (!reader.awaitCaughtUp(CAUGHT_UP)) {
					throw new IllegalStateException("the reader did not read the history in " + CAUGHT_UP);
				}
				Duration read = Duration.ofNanos(System.nanoTime() - start);
				if (reader.planEpoch().map(PlanEpoch::generation).orElse(-1) != generations
						|| reader.plan(member(0), incarnation(0)).isEmpty()) {
					throw new IllegalStateException("the reader caught up without the last generation's plan");
				}
				return new History(members, tasks, generations, records, read);
			}
		}
		finally {
			this.broker.admin().deleteTopics(List.of(topic)).all().get();
		}
	}

	private Map<String, Object> config(String applicationId) {
		return Map.of("application.id", applicationId, "bootstrap.servers", this.broker.bootstrapServers());
	}

	/**
	 * Every task moves one member on per generation; its standby copy sits on the member after its owner, and a tenth of
	 * the tasks have a learner on the member after that.
	 */
	static Plan plan(int members, int tasks, int generation) {
		int subtopologies = 4;
		List<SortedSet<TaskId>> active = new ArrayList<>();
		List<SortedSet<TaskId>> standby = new ArrayList<>();
		List<SortedMap<TaskId, Learner>> learning = new ArrayList<>();
		for (int member = 0; member < members; member++) {
			active.add(new TreeSet<>());
			standby.add(new TreeSet<>());
			learning.add(new TreeMap<>());
		}
		for (int task = 0; task < tasks; task++) {
			TaskId id = new TaskId(task % subtopologies, task / subtopologies);
			active.get((task + generation) % members).add(id);
			if (members > 1) {
				standby.get((task + generation + 1) % members).add(id);
			}
			if (members > 2 && task % 10 == generation % 10) {
				learning.get((task + generation + 2) % members).put(id, new Learner(id, 1_000L + task, false));
			}
		}
		SortedMap<ProcessId, MemberPlan> byProcess = new TreeMap<>();
		for (int member = 0; member < members; member++) {
			byProcess.put(new ProcessId(new UUID(0, member)),
					new MemberPlan(member(member), incarnation(member), active.get(member), learning.get(member),
							new TreeSet<>(), standby.get(member), false, Optional.empty(), Optional.empty(),
							RebalancingMode.INCREMENTAL));
		}
		return new Plan(byProcess, List.of(), List.of(), Optional.empty(), false, false, Set.of(),
				Set.of(), 0);
	}

	private static String member(int index) {
		return "m" + index;
	}

	private static String incarnation(int index) {
		return "i" + index;
	}

	/** The broker's count of the topic's bytes in (produced) or out (fetched), from its meters over JMX. */
	private static long brokerBytes(String meter, String topic) throws JMException {
		ObjectName name = new ObjectName("kafka.server:type=BrokerTopicMetrics,name=" + meter + ",topic=" + topic);
		if (!ManagementFactory.getPlatformMBeanServer().isRegistered(name)) {
			return 0;
		}
		return ((Number) ManagementFactory.getPlatformMBeanServer().getAttribute(name, "Count")).longValue();
	}

	/** CPU time of the threads that run the control topic's readers and their probes' admin clients. */
	private static long readerCpuNanos() {
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		long total = 0;
		for (ThreadInfo thread : threads.getThreadInfo(threads.getAllThreadIds())) {
			if (thread != null && (thread.getThreadName().startsWith("incremental-rebalance-control-")
					|| thread.getThreadName().startsWith("kafka-admin-client-thread | scale-"))) {
				total += Math.max(0, threads.getThreadCpuTime(thread.getThreadId()));
			}
		}
		return total;
	}

	/**
	 * A run's results as {@code control-topic-scale.json} keeps them.
	 * @param at when it ended
	 * @param results the live group at each size
	 * @param histories the starts over a history
	 */
	record Run(String at, List<Result> results, List<History> histories) {

		static final String FILE = "control-topic-scale.json";

	}

	record Result(int members, int tasks, long bytesWritten, long bytesRead, Duration medianUntilAllHaveIt,
			Duration maxUntilAllHaveIt, double readerCpuShare) {

		static String header() {
			return "| members | tasks | bytes written per rebalance | bytes read per rebalance, group-wide "
					+ "| publish to the last member having its plan, median / max | readers' CPU at rest, group-wide |\n"
					+ "|---:|---:|---:|---:|---:|---:|";
		}

		String row() {
			return String.format(Locale.ROOT, "| %d | %s | %s | %s | %d ms / %d ms | %.1f%% of a core |", this.members,
					ReadmeTables.grouped(this.tasks), ReadmeTables.grouped(this.bytesWritten),
					ReadmeTables.grouped(this.bytesRead), this.medianUntilAllHaveIt.toMillis(),
					this.maxUntilAllHaveIt.toMillis(), this.readerCpuShare * 100);
		}

	}

	record History(int members, int tasks, int generations, long records, Duration read) {

		static String header() {
			return "| members | tasks | generations of history | records | a start reads them in |\n"
					+ "|---:|---:|---:|---:|---:|";
		}

		String row() {
			return String.format(Locale.ROOT, "| %d | %s | %s | %s | %s ms |", this.members,
					ReadmeTables.grouped(this.tasks), ReadmeTables.grouped(this.generations),
					ReadmeTables.grouped(this.records), ReadmeTables.grouped(this.read.toMillis()));
		}

	}

}
