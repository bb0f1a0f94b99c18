package io.github.incrementalrebalance.chaos;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.control.ControlTopic;
import io.github.incrementalrebalance.control.ControlTopicReader;
import io.github.incrementalrebalance.control.ControlTopicWriter;
import io.github.incrementalrebalance.control.LeaveRecord;
import io.github.incrementalrebalance.control.PlanEpoch;
import io.github.incrementalrebalance.control.PlanRecord;
import io.github.incrementalrebalance.planner.MemberPlan;
import io.github.incrementalrebalance.testkit.ExactCountVerifier;
import io.github.incrementalrebalance.testkit.FaultProxy;
import io.github.incrementalrebalance.testkit.GapMeter;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.StandaloneMember;
import io.github.incrementalrebalance.testkit.TrackingProducer;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.TaskId;

/**
 * The group the chaos run works on: the counting application with a stateless second stage, each instance a member
 * in a JVM of its own (so it can be killed for real), input at a steady rate, and what an operator sees of it (the
 * control topic, the consumer group, the committed output).
 */
final class ChaosGroup implements AutoCloseable {

	static final int PARTITIONS = 6;

	static final long ACCEPTABLE_LAG = 1_000;

	private static final String APPLICATION_ID = "chaos";

	private static final double BALANCING_FACTOR = 2.0;

	private final KafkaBroker broker;

	private final Path stateRoot;

	private final ChaosSettings settings;

	private final Random random;

	private final Map<String, StandaloneMember> alive = new LinkedHashMap<>();

	/** Every start, those of an instance started again under its name included. */
	private final List<StandaloneMember> everyStart = new ArrayList<>();

	private final Map<String, String> learnerRebalance = new HashMap<>();

	private final GapMeter gapMeter = new GapMeter();

	private final ControlTopicReader reader;

	private final ControlTopicWriter writer;

	private final TrackingProducer producer;

	private final OutputWatcher watcher;

	private int started;

	ChaosGroup(KafkaBroker broker, Path stateRoot, ChaosSettings settings) {
		this.broker = broker;
		this.stateRoot = stateRoot;
		this.settings = settings;
		// a sequence of its own, so that the runner's choices do not shift the instances' settings
		this.random = new Random(31 * settings.seed() + 1);
		broker.createTopics(PARTITIONS, input(), output(), forwarded());
		String controlTopic = LearnerConfig.defaultControlTopic(APPLICATION_ID);
		ControlTopic.ensureExists(broker.admin(), controlTopic, -1, true, Duration.ofSeconds(30));
		Map<String, Object> config = Map.of(StreamsConfig.APPLICATION_ID_CONFIG, APPLICATION_ID + "-chaos-run",
				StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
		this.reader = new ControlTopicReader(config, controlTopic);
		this.reader.start();
		this.writer = new ControlTopicWriter(config, controlTopic);
		this.producer = new TrackingProducer(broker.bootstrapServers(), input());
		this.watcher = new OutputWatcher(broker.bootstrapServers(), forwarded(), this.gapMeter);
	}

	private static String input() {
		return APPLICATION_ID + "-input";
	}

	private static String output() {
		return APPLICATION_ID + "-output";
	}

	private static String forwarded() {
		return APPLICATION_ID + "-forwarded";
	}

	/**
	 * Start the first instances, give every task its state, check it was counted, then start the input.
	 */
	void setUp() {
		for (int i = 0; i < this.settings.instances(); i++) {
			start();
		}
		this.producer.load(PARTITIONS, this.settings.keysPerTask(), 1);
		ExactCountVerifier.assertExactCounts(this.broker.bootstrapServers(), output(),
				this.producer.acknowledgedCounts(), Duration.ofMinutes(3));
		this.producer.startMarkers(PARTITIONS, Duration.ofMillis(50));
		this.producer.startUpdates(PARTITIONS, this.settings.keysPerTask(), this.settings.updatesPerSecond(),
				this.settings.seed());
	}

	/**
	 * Start a new instance and wait until its Kafka Streams runs.
	 * @return its name
	 */
	String start() {
		return start("m" + (++this.started));
	}

	/**
	 * Start an instance under a name and wait until its Kafka Streams runs: a new one, or one stopped before started
	 * again with its instance id and its state directory, as a pod restarted in place.
	 * @param name the instance id
	 * @return the name
	 */
	String start(String name) {
		String trigger = this.random.nextBoolean() ? "eager" : "conservative";
		Map<String, String> properties = new HashMap<>();
		properties.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
		properties.put(StreamsConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, Long.toString(ACCEPTABLE_LAG));
		properties.put(StreamsConfig.STATE_CLEANUP_DELAY_MS_CONFIG, "1000");
		properties.put(LearnerConfig.DRAIN_HAND_OVER_CONFIG, trigger);
		properties.put(StandaloneMember.RESTORE_RATE, Long.toString(this.settings.restoreRate()));
		properties.put(StandaloneMember.FORWARD_TOPIC, forwarded());
		// named by its client id, so that the proxy can fault its clients, the control topic's included
		properties.put(StreamsConfig.CLIENT_ID_CONFIG, name);
		properties.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG),
				Long.toString(this.settings.heartbeat().toMillis()));
		properties.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG),
				Long.toString(this.settings.session().toMillis()));
		String bootstrap = this.broker.bootstrapServers();
		if (this.settings.faults()) {
			bootstrap = this.broker.proxiedBootstrapServers();
			// a rebalance a fault stretches must not outlast the members' transactions (the price: a killed member's
			// open transaction holds read-committed readers until it times out)
			properties.put(StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG), "120000");
		}
		try {
			StandaloneMember member = StandaloneMember.launch(bootstrap, APPLICATION_ID, name, this.stateRoot, input(),
					output(), properties);
			this.alive.put(name, member);
			this.everyStart.add(member);
			this.learnerRebalance.put(name, trigger);
			if (!member.awaitRunning(Duration.ofMinutes(2))) {
				throw new IllegalStateException(name + " did not reach RUNNING within 2 minutes (see "
						+ this.stateRoot.resolve(name + ".log") + ")");
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("cannot start " + name, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted while starting " + name, ex);
		}
		return name;
	}

	/**
	 * Ask an instance to leave, as the command line does: a leave record for its current start.
	 * @param name the instance
	 * @param timeout its drain timeout, if any
	 * @return the request written
	 */
	LeaveRecord leave(String name, Optional<Duration> timeout) {
		String incarnation = incarnationOf(name)
			.orElseThrow(() -> new IllegalStateException(name + " is not in the current plan"));
		return write(LeaveRecord.request(name, incarnation, Instant.now().truncatedTo(ChronoUnit.MILLIS), timeout,
				"chaos"));
	}

	/**
	 * Write a leave record as it is, e.g. for a start that is gone.
	 * @param record the record
	 * @return the record
	 */
	LeaveRecord write(LeaveRecord record) {
		try {
			this.writer.write(record).get(30, TimeUnit.SECONDS);
			return record;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted", ex);
		}
		catch (ExecutionException | TimeoutException ex) {
			throw new IllegalStateException("cannot write " + record, ex);
		}
	}

	/**
	 * The broker that leads the control topic's partition now.
	 * @return its id
	 */
	int controlTopicLeader() {
		return this.broker.leaderOf(LearnerConfig.defaultControlTopic(APPLICATION_ID), 0)
			.orElseThrow(() -> new IllegalStateException("the control topic has no leader"));
	}

	/**
	 * The broker that is the group's coordinator now.
	 * @return its id
	 */
	int coordinator() {
		try {
			return this.broker.admin()
				.describeConsumerGroups(List.of(APPLICATION_ID))
				.all()
				.get(10, TimeUnit.SECONDS)
				.get(APPLICATION_ID)
				.coordinator()
				.id();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted", ex);
		}
		catch (ExecutionException | TimeoutException ex) {
			throw new IllegalStateException("the group's coordinator could not be found", ex);
		}
	}

	void stopBroker(int id) {
		this.broker.stopBroker(id);
	}

	void startBroker(int id) {
		this.broker.startBroker(id);
	}

	void kill(String name) {
		StandaloneMember member = this.alive.remove(name);
		try {
			member.kill();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * SIGTERM an instance and wait for it to exit.
	 * @param name the instance
	 * @return whether it exited within a minute
	 */
	boolean terminate(String name) {
		StandaloneMember member = this.alive.remove(name);
		try {
			return member.terminate(Duration.ofMinutes(1));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	List<String> alive() {
		return List.copyOf(this.alive.keySet());
	}

	boolean isAlive(String name) {
		return this.alive.containsKey(name);
	}

	/**
	 * Instances whose JVM ended although the run did not stop them.
	 * @return their names
	 */
	List<String> diedByThemselves() {
		return this.alive.entrySet().stream()
			.filter((entry) -> !entry.getValue().isAlive())
			.map(Map.Entry::getKey)
			.toList();
	}

	String learnerRebalance(String name) {
		return this.learnerRebalance.get(name);
	}

	Optional<String> leader() {
		return this.reader.planEpoch().map(PlanEpoch::leader).filter(this.alive::containsKey);
	}

	int generation() {
		return this.reader.planEpoch().map(PlanEpoch::generation).orElse(PlanEpoch.UNKNOWN_GENERATION);
	}

	/**
	 * Cut every client of an instance off from the broker: its connections closed, new ones refused.
	 * @param name the instance
	 * @return the fault, to heal
	 */
	FaultProxy.Fault cutOff(String name) {
		return this.broker.proxy().cut(FaultProxy.clientsStartingWith(name + "-"));
	}

	/**
	 * Slow every client of an instance: each byte delivered this much later, each way.
	 * @param name the instance
	 * @param latency the added latency
	 * @return the fault, to heal
	 */
	FaultProxy.Fault slow(String name, Duration latency) {
		return this.broker.proxy().delay(FaultProxy.clientsStartingWith(name + "-"), latency);
	}

	/**
	 * Hold an instance's stream thread on the next record it processes.
	 * @param name the instance
	 * @param duration how long the thread is stuck
	 * @return whether the thread took the slow call within a minute
	 */
	boolean slowNextRecord(String name, Duration duration) {
		StandaloneMember member = this.alive.get(name);
		member.slowNextRecord(duration);
		try {
			return member.awaitSlowCallTaken(Duration.ofMinutes(1));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/**
	 * Cut every control-topic client of the group (readers, writers, probes) off from the broker.
	 * @return the fault, to heal
	 */
	FaultProxy.Fault cutControlTopic() {
		return this.broker.proxy().cut((clientId) -> clientId.contains("-rebalance-control-"));
	}

	/**
	 * Every leave record on the control topic.
	 * @return by key
	 */
	Map<String, LeaveRecord> leaveRecords() {
		return this.reader.leaveRecords();
	}

	Optional<LeaveRecord> leaveRecord(String name) {
		return this.reader.leaveRecord(name);
	}

	private List<MemberPlan> currentPlans() {
		return this.reader.plans().stream().map(PlanRecord::plan).toList();
	}

	/**
	 * The stateful tasks an instance runs, as the current plan says.
	 * @param name the instance
	 * @return its tasks of the counting sub-topology
	 */
	Set<TaskId> statefulTasksOf(String name) {
		return currentPlans().stream()
			.filter((plan) -> plan.instanceId().equals(name))
			.flatMap((plan) -> plan.active().stream())
			.filter((task) -> task.subtopology() == 0)
			.collect(Collectors.toCollection(TreeSet::new));
	}

	/**
	 * The start of an instance the current plan has.
	 * @param name the instance
	 * @return its incarnation, if it is in the plan
	 */
	Optional<String> incarnationOf(String name) {
		return currentPlans().stream()
			.filter((plan) -> plan.instanceId().equals(name))
			.map(MemberPlan::incarnation)
			.findFirst();
	}

	/**
	 * Whether an instance's plan shows it leaving with learners placed elsewhere.
	 * @param name the instance
	 * @return true once its learners warm up
	 */
	boolean learnersPlacedFor(String name) {
		List<MemberPlan> plans = currentPlans();
		return plans.stream().anyMatch((plan) -> plan.instanceId().equals(name) && plan.leaving())
				&& plans.stream().anyMatch((plan) -> !plan.learning().isEmpty());
	}

	/**
	 * Records restored into active tasks by every instance that ever ran, in total per task.
	 * @return the records per task
	 */
	Map<TaskId, Long> restoredByTask() {
		Map<TaskId, Long> restored = new TreeMap<>();
		this.everyStart
			.forEach((member) -> member.restored().forEach((task, count) -> restored.merge(task, count, Long::sum)));
		return restored;
	}

	/**
	 * Whether the current plan has an instance that is not leaving.
	 * @param name the instance
	 * @return true when it stays
	 */
	boolean staysInPlan(String name) {
		return currentPlans().stream().anyMatch((plan) -> plan.instanceId().equals(name) && !plan.leaving());
	}

	Map<TaskId, Duration> longestStalls(Instant from, Instant to) {
		Map<TaskId, Duration> stalls = new LinkedHashMap<>();
		statefulTasks().forEach((task) -> stalls.put(task, this.gapMeter.longestGap(task, from, to)));
		return stalls;
	}

	private static Set<TaskId> statefulTasks() {
		Set<TaskId> tasks = new TreeSet<>();
		for (int partition = 0; partition < PARTITIONS; partition++) {
			tasks.add(new TaskId(0, partition));
		}
		return tasks;
	}

	/**
	 * What keeps the group from being converged: every instance alive is in the last plan and nothing else is, nobody
	 * leaves or learns, every task runs, the load is within the balancing factor, the consumer group is stable with
	 * Kafka's assignment what the plan says (the plan is what members, the endpoint and the command line show), and
	 * every task's markers come through.
	 * @return what is not yet so, empty when converged
	 */
	Optional<String> notConverged() {
		Optional<PlanEpoch> epoch = this.reader.planEpoch();
		if (epoch.isEmpty()) {
			return Optional.of("no plan yet");
		}
		List<MemberPlan> plans = currentPlans();
		List<String> inPlan = plans.stream().map(MemberPlan::instanceId).sorted().toList();
		if (!inPlan.equals(this.alive.keySet().stream().sorted().toList())) {
			return Optional.of("plan of generation " + epoch.get().generation() + " has " + inPlan + ", alive are "
					+ this.alive.keySet());
		}
		List<String> busy = plans.stream()
			.filter((plan) -> plan.leaving() || !plan.learning().isEmpty() || plan.handOver().isPresent())
			.map((plan) -> plan.instanceId() + (plan.leaving() ? " leaving" : "") + (plan.learning().isEmpty() ? ""
					: " learning " + plan.learning().keySet()))
			.toList();
		if (!busy.isEmpty()) {
			return Optional.of("still moving: " + busy);
		}
		Set<TaskId> active = new HashSet<>();
		plans.forEach((plan) -> active.addAll(plan.active()));
		if (active.size() != 2 * PARTITIONS) {
			return Optional.of(active.size() + " of " + (2 * PARTITIONS) + " tasks active");
		}
		int most = plans.stream().mapToInt((plan) -> plan.active().size()).max().orElse(0);
		int least = plans.stream().mapToInt((plan) -> plan.active().size()).min().orElse(0);
		if (most > BALANCING_FACTOR * least) {
			return Optional.of("unbalanced: " + most + " against " + least + " tasks");
		}
		Optional<ConsumerGroupDescription> group = describeGroup();
		GroupState state = group.map(ConsumerGroupDescription::groupState).orElse(GroupState.UNKNOWN);
		if (state != GroupState.STABLE) {
			return Optional.of("consumer group " + state);
		}
		Map<String, Set<TaskId>> planned = new TreeMap<>();
		plans.forEach((plan) -> planned.put(plan.instanceId(), new TreeSet<>(plan.active())));
		Map<String, Set<TaskId>> assigned = assignedByKafka(group.get());
		if (!assigned.equals(planned)) {
			return Optional.of("Kafka's assignment " + assigned + " is not the plan's " + planned);
		}
		Instant recent = Instant.now().minusSeconds(1);
		if (!this.gapMeter.allProcessedSince(statefulTasks(), recent)) {
			return Optional.of("markers of some task not through within 1 s");
		}
		return Optional.empty();
	}

	/**
	 * The active tasks Kafka gave each instance: the partitions its consumers were assigned, the input's partition p
	 * being task 0_p and the counts' (the stateless stage's source) 1_p.
	 */
	private static Map<String, Set<TaskId>> assignedByKafka(ConsumerGroupDescription group) {
		Map<String, Set<TaskId>> assigned = new TreeMap<>();
		for (MemberDescription member : group.members()) {
			// Kafka Streams names a stream thread's consumer <client.id>-StreamThread-<n>-consumer
			String instance = member.clientId().substring(0, member.clientId().indexOf("-StreamThread-"));
			Set<TaskId> tasks = assigned.computeIfAbsent(instance, (name) -> new TreeSet<>());
			for (TopicPartition partition : member.assignment().topicPartitions()) {
				int subtopology = partition.topic().equals(input()) ? 0 : 1;
				tasks.add(new TaskId(subtopology, partition.partition()));
			}
		}
		return assigned;
	}

	private GroupState groupState() {
		return describeGroup().map(ConsumerGroupDescription::groupState).orElse(GroupState.UNKNOWN);
	}

	private Optional<ConsumerGroupDescription> describeGroup() {
		try {
			return Optional.of(this.broker.admin()
				.describeConsumerGroups(List.of(APPLICATION_ID))
				.all()
				.get(10, TimeUnit.SECONDS)
				.get(APPLICATION_ID));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return Optional.empty();
		}
		catch (ExecutionException | TimeoutException ex) {
			return Optional.empty();
		}
	}

	/**
	 * The group as an operator would describe it, for a failure message.
	 * @return one paragraph
	 */
	String describe() {
		String plan = this.reader.planEpoch()
			.map((epoch) -> "plan of generation " + epoch.generation() + " by " + epoch.leader() + ": "
					+ epoch.summary())
			.orElse("no plan");
		String members = currentPlans().stream()
			.map((p) -> p.instanceId() + "/" + p.incarnation() + " active " + p.active() + " learning "
					+ p.learning().keySet() + (p.leaving() ? " leaving" : "")
					+ p.handOver().map((reason) -> " hand-over " + reason).orElse(""))
			.collect(Collectors.joining("; "));
		String leaves = this.reader.leaveRecords().values().stream()
			.map((leave) -> leave.instanceId() + "/" + leave.incarnation() + " " + leave.leaveId()
					+ (leave.cancelled() ? " cancelled" : "") + leave.ended().map((ended) -> " ended " + ended).orElse(""))
			.collect(Collectors.joining("; "));
		return "alive " + this.alive.keySet() + "; consumer group " + groupState() + "; " + plan + "; members: "
				+ members + "; leave records: " + leaves + "; logs in " + this.stateRoot;
	}

	/**
	 * Stop the input and compare what was counted with what was sent.
	 * @return the keys counted too few and too many times
	 */
	ExactCountVerifier.Mismatch stopAndVerify() {
		this.producer.stopUpdates();
		this.producer.stopMarkers();
		return ExactCountVerifier.verify(this.broker.bootstrapServers(), output(), this.producer.acknowledgedCounts(),
				Duration.ofMinutes(3));
	}

	long duplicatedDownstream() {
		return this.watcher.duplicated();
	}

	@Override
	public void close() throws Exception {
		for (StandaloneMember member : new ArrayList<>(this.everyStart)) {
			member.close();
		}
		this.watcher.close();
		this.producer.close();
		this.writer.close();
		this.reader.close();
	}

}
