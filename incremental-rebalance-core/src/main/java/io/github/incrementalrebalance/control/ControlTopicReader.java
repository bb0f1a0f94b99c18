package io.github.incrementalrebalance.control;

import java.time.Duration;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import io.github.incrementalrebalance.planner.LeaveRequest;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the latest state of the control topic in memory for the assignor (any member may lead) and for the member
 * itself. Reads with {@code assign()} from the beginning, without a consumer group, on its own thread. A record it
 * cannot read is skipped with a WARN naming its offset; while the topic is unavailable the last view stays.
 */
public final class ControlTopicReader implements ControlView, ControlState, AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(ControlTopicReader.class);

	private static final Duration POLL = Duration.ofMillis(200);

	/** How often the reader asks the cluster for the topic's end, so that a topic gone or unreadable is noticed. */
	private static final Duration PROBE_INTERVAL = Duration.ofSeconds(5);

	private static final Duration FIRST_BACKOFF = Duration.ofMillis(200);

	private static final Duration LAST_BACKOFF = Duration.ofSeconds(10);

	private final ControlClients clients;

	private final TopicPartition partition;

	private final Map<String, LeaveRecord> leaves = new ConcurrentHashMap<>();

	private final Map<String, RejoinRequest> rejoins = new ConcurrentHashMap<>();

	/** Plan records by key, then by generation: a late write of a former leader never hides the current plan. */
	private final Map<String, NavigableMap<Integer, PlanRecord>> plans = new ConcurrentHashMap<>();

	private final Map<String, ProgressRecord> progress = new ConcurrentHashMap<>();

	private final AtomicReference<PlanEpoch> epoch = new AtomicReference<>();

	private final List<Consumer<ControlRecord>> listeners = new CopyOnWriteArrayList<>();

	private volatile CountDownLatch caughtUp = new CountDownLatch(1);

	private volatile KafkaConsumer<byte[], byte[]> consumer;

	private volatile Thread thread;

	private Admin admin;

	private volatile boolean running;

	/** The first offset that is news to listeners: the topic's end when the current read started. */
	private volatile long liveFrom = Long.MAX_VALUE;

	private final AtomicReference<String> problem = new AtomicReference<>();

	/**
	 * @param streamsConfig the Kafka Streams config, for bootstrap and security settings
	 * @param topic the control topic
	 */
	public ControlTopicReader(Map<String, ?> streamsConfig, String topic) {
		Object applicationId = streamsConfig.get("application.id");
		this.clients = new ControlClients(streamsConfig, applicationId + "-rebalance-control");
		this.partition = new TopicPartition(topic, 0);
	}

	/**
	 * Be told of every record written after the reader started reading (on the reader's thread: return fast, never
	 * throw). The topic's history, read again at each start and after a fault to rebuild the view, is not news and is
	 * not passed on.
	 * @param listener the listener; a tombstone is not passed on
	 */
	public void addListener(Consumer<ControlRecord> listener) {
		this.listeners.add(listener);
	}

	public synchronized void start() {
		if (this.running) {
			return;
		}
		this.running = true;
		this.consumer = this.clients.consumer();
		Thread reader = new Thread(this::read, "incremental-rebalance-control-reader-" + this.partition.topic());
		reader.setDaemon(true);
		reader.start();
		this.thread = reader;
	}

	/**
	 * Wait until the reader has read the topic up to its end as of its current start (or the next, when it is not
	 * reading yet): from then on what is written is news to listeners.
	 * @param timeout how long
	 * @return whether it caught up in time
	 */
	public boolean awaitCaughtUp(Duration timeout) {
		try {
			return this.caughtUp.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	@Override
	public List<LeaveRequest> leaveRequests() {
		return this.leaves.values().stream()
			.filter(LeaveRecord::pending)
			.map(LeaveRecord::toLeaveRequest)
			.toList();
	}

	@Override
	public Optional<LeaveRecord> leaveRecord(String instanceId) {
		return Optional.ofNullable(this.leaves.get(instanceId));
	}

	public Map<String, LeaveRecord> leaveRecords() {
		return Map.copyOf(this.leaves);
	}

	@Override
	public Optional<PlanRecord> plan(String instanceId, String incarnation) {
		PlanEpoch current = this.epoch.get();
		if (current == null) {
			return Optional.empty();
		}
		return Optional.ofNullable(this.plans.get(PlanRecord.keyOf(instanceId, incarnation)))
			.or(() -> Optional.ofNullable(this.plans.get(PlanRecord.KEY_PREFIX + instanceId)))
			.map((byGeneration) -> byGeneration.get(current.generation()))
			.filter((plan) -> plan.incarnation().equals(incarnation));
	}

	/**
	 * The plans of the current epoch, one per member start.
	 * @return the plans, by instance id (then incarnation)
	 */
	public List<PlanRecord> plans() {
		PlanEpoch current = this.epoch.get();
		if (current == null) {
			return List.of();
		}
		return this.plans.values().stream()
			.map((byGeneration) -> byGeneration.get(current.generation()))
			.filter(Objects::nonNull)
			.sorted(Comparator.comparing(PlanRecord::instanceId).thenComparing(PlanRecord::incarnation))
			.toList();
	}

	/**
	 * The learners' progress of the members of the current plan: a record of a start that is no longer in the group
	 * (it crashed before deleting it) is left out.
	 * @return the records, by instance id (then incarnation)
	 */
	public List<ProgressRecord> progress() {
		Set<String> starts = plans().stream()
			.map((plan) -> ProgressRecord.keyOf(plan.instanceId(), plan.incarnation()))
			.collect(Collectors.toSet());
		return this.progress.values().stream()
			.filter((record) -> starts.contains(record.key()))
			.sorted(Comparator.comparing(ProgressRecord::instanceId).thenComparing(ProgressRecord::incarnation))
			.toList();
	}

	/**
	 * The keys of the progress records read, for the leader's housekeeping.
	 * @return the keys
	 */
	public Set<String> progressKeys() {
		return Set.copyOf(this.progress.keySet());
	}

	/**
	 * The last rejoin request of each instance, for the leader's housekeeping.
	 * @return requests by instance id
	 */
	public Map<String, RejoinRequest> rejoinRequests() {
		return Map.copyOf(this.rejoins);
	}

	/**
	 * The keys of the plan records read, for the leader's housekeeping.
	 * @return the keys
	 */
	public Set<String> planKeys() {
		return Set.copyOf(this.plans.keySet());
	}

	@Override
	public Optional<PlanEpoch> planEpoch() {
		return Optional.ofNullable(this.epoch.get());
	}

	/**
	 * Why the control topic cannot be read right now, if it cannot: the reader keeps trying, and the assignor and the
	 * members keep the last view meanwhile.
	 * @return the problem, empty while the topic is read
	 */
	public Optional<String> problem() {
		return Optional.ofNullable(this.problem.get());
	}

	/**
	 * Why the view cannot be planned with, if it cannot: it is not read yet, or not read to its end since it started.
	 * A view read to its end once is kept while the topic cannot be read for a while: it still holds every leave
	 * request written before, and no new one can be written meanwhile ({@link #problem()} says why).
	 * @return the reason, empty while the view is current
	 */
	@Override
	public Optional<String> unavailable() {
		if (!this.running) {
			return Optional.of("control topic " + this.partition.topic() + " is not read yet");
		}
		if (this.caughtUp.getCount() > 0) {
			return problem().or(() -> Optional.of("control topic " + this.partition.topic()
					+ " is not read to its end yet"));
		}
		return Optional.empty();
	}

	/**
	 * Reads until closed. Any error (a timeout, a topic gone, an authorization error) is reported by
	 * {@link #problem()} and logged, and the reader starts again with a new consumer after a back-off; the view read
	 * so far is kept.
	 */
	private void read() {
		Duration backoff = FIRST_BACKOFF;
		try {
			while (this.running) {
				KafkaConsumer<byte[], byte[]> reader = this.consumer;
				try {
					readWith(reader);
				}
				catch (WakeupException | InterruptException ex) {
					if (this.running) {
						report(ex);
					}
				}
				catch (RuntimeException ex) {
					if (this.problem.get() == null) {
						// it read well until now: a new fault, not the next try of an old one
						backoff = FIRST_BACKOFF;
					}
					report(ex);
				}
				finally {
					reader.close(Duration.ofSeconds(5));
				}
				if (!this.running || !pause(backoff)) {
					return;
				}
				this.consumer = this.clients.consumer();
				backoff = (backoff.multipliedBy(2).compareTo(LAST_BACKOFF) > 0) ? LAST_BACKOFF
						: backoff.multipliedBy(2);
			}
		}
		finally {
			closeAdmin();
		}
	}

	private void readWith(KafkaConsumer<byte[], byte[]> reader) {
		reader.assign(List.of(this.partition));
		reader.seekToBeginning(List.of(this.partition));
		long endAtStart = endOffset(reader);
		this.liveFrom = endAtStart;
		long nextProbe = System.nanoTime() + PROBE_INTERVAL.toNanos();
		recovered();
		while (this.running) {
			for (ConsumerRecord<byte[], byte[]> record : reader.poll(POLL)) {
				apply(record);
			}
			if (this.caughtUp.getCount() > 0 && reader.position(this.partition, POLL) >= endAtStart) {
				this.caughtUp.countDown();
			}
			if (System.nanoTime() - nextProbe >= 0) {
				probe(reader);
				recovered();
				nextProbe = System.nanoTime() + PROBE_INTERVAL.toNanos();
			}
		}
	}

	/**
	 * A consumer only logs the fetch errors of a topic that is gone, and answers from its cached metadata: ask the
	 * cluster.
	 */
	private void probe(KafkaConsumer<byte[], byte[]> reader) {
		if (this.admin == null) {
			this.admin = this.clients.admin();
		}
		try {
			this.admin.describeTopics(List.of(this.partition.topic()))
				.allTopicNames()
				.get(PROBE_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new InterruptException(ex);
		}
		catch (ExecutionException ex) {
			throw (ex.getCause() instanceof UnknownTopicOrPartitionException)
					? new IllegalStateException("the topic does not exist (create it, or let incremental-rebalance "
							+ "create it at start with incremental.rebalance.control.topic.create=true)")
					: new IllegalStateException(String.valueOf(ex.getCause()), ex.getCause());
		}
		catch (TimeoutException ex) {
			throw new IllegalStateException("the cluster did not describe it within " + PROBE_INTERVAL, ex);
		}
		endOffset(reader);
	}

	private long endOffset(KafkaConsumer<byte[], byte[]> reader) {
		return reader.endOffsets(List.of(this.partition), PROBE_INTERVAL).getOrDefault(this.partition, 0L);
	}

	private void report(RuntimeException ex) {
		String now = "control topic " + this.partition.topic() + " cannot be read: " + ex;
		if (!now.equals(this.problem.getAndSet(now))) {
			logger.warn("The {}; retrying with back-off, the last view is kept meanwhile", now);
		}
	}

	private void recovered() {
		if (this.problem.getAndSet(null) != null) {
			logger.info("Control topic {} is read again", this.partition.topic());
		}
	}

	private void closeAdmin() {
		if (this.admin != null) {
			this.admin.close(Duration.ofSeconds(5));
			this.admin = null;
		}
	}

	/**
	 * Wait before the next attempt, or until closed.
	 * @return false when closed meanwhile
	 */
	private boolean pause(Duration backoff) {
		long until = System.nanoTime() + backoff.toNanos();
		while (this.running && System.nanoTime() - until < 0) {
			LockSupport.parkNanos(Math.min(until - System.nanoTime(), POLL.toNanos()));
		}
		return this.running;
	}

	private void apply(ConsumerRecord<byte[], byte[]> record) {
		String key = ControlCodec.decodeKey(record.key());
		Optional<ControlRecord> decoded;
		try {
			decoded = ControlCodec.decode(key, record.value());
		}
		catch (MalformedControlRecordException ex) {
			logger.warn("Skipping control record at offset {} of {}: {}", record.offset(), this.partition,
					ex.getMessage());
			return;
		}
		if (decoded.isEmpty()) {
			if (key.startsWith(LeaveRecord.KEY_PREFIX)) {
				this.leaves.remove(key.substring(LeaveRecord.KEY_PREFIX.length()));
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
			return;
		}
		ControlRecord value = decoded.get();
		if (value instanceof LeaveRecord leave) {
			this.leaves.put(leave.instanceId(), leave);
		}
		else if (value instanceof RejoinRequest rejoin) {
			this.rejoins.put(rejoin.instanceId(), rejoin);
		}
		else if (value instanceof ProgressRecord learners) {
			this.progress.put(key, learners);
		}
		else if (value instanceof PlanRecord plan) {
			this.plans.compute(key, (k, held) -> {
				NavigableMap<Integer, PlanRecord> byGeneration = (held != null) ? new TreeMap<>(held) : new TreeMap<>();
				byGeneration.put(plan.generation(), plan);
				return Collections.unmodifiableNavigableMap(byGeneration);
			});
		}
		else if (value instanceof PlanEpoch planEpoch && !adopt(planEpoch, record.offset())) {
			return;
		}
		if (record.offset() < this.liveFrom) {
			return;
		}
		for (Consumer<ControlRecord> listener : this.listeners) {
			try {
				listener.accept(value);
			}
			catch (RuntimeException ex) {
				logger.warn("Control record listener failed on {}", value.key(), ex);
			}
		}
	}

	/**
	 * Take a plan epoch unless it is a late write of a former leader, then forget the plan records of other
	 * generations (those of the next plan, written before its epoch, stay).
	 * @return whether it was taken
	 */
	private boolean adopt(PlanEpoch next, long offset) {
		PlanEpoch held = this.epoch.get();
		if (held != null && !next.supersedes(held)) {
			logger.warn("Ignoring the plan of generation {} by {} at offset {} of {}: the plan of generation {} by {} "
					+ "replaced it (a late write of a former leader)", next.generation(), next.leader(), offset,
					this.partition, held.generation(), held.leader());
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

	@Override
	public synchronized void close() {
		if (!this.running) {
			return;
		}
		this.running = false;
		this.caughtUp = new CountDownLatch(1);
		this.consumer.wakeup();
		this.problem.set(null);
		try {
			this.thread.join(Duration.ofSeconds(10).toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
