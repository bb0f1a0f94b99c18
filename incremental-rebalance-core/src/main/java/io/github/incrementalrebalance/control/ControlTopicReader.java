package io.github.incrementalrebalance.control;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

import io.github.incrementalrebalance.planner.StartId;
import io.github.incrementalrebalance.assignor.ControlView;
import io.github.incrementalrebalance.config.Backoff;
import io.github.incrementalrebalance.planner.LeaveRequest;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.InvalidOffsetException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the latest state of the control topic in memory for the assignor (any member may lead) and for the member
 * itself. Reads with {@code assign()}, without a consumer group, on its own thread; the {@link ControlTopicView view}
 * holds what it read and a {@link ControlTopicProbe probe} on another thread asks the cluster whether the topic is
 * there.
 * <p>
 * A view is only ever current or being caught up, never history presented as current: after a fault the reader
 * resumes after the last record it applied, with a new consumer; when it must start over (at each start, and when the
 * topic was deleted and created again or lost the records it would resume from) it reads the topic from its beginning
 * into a new view, which replaces the old one once read to the end, and until then the reader is not caught up. A
 * record it cannot read is skipped with a WARN naming its offset; while the topic is unavailable the last view stays.
 */
public final class ControlTopicReader implements ControlView, ControlState, AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(ControlTopicReader.class);

	private static final Duration POLL = Duration.ofMillis(200);

	/** How long the probe waits between two of its questions to the cluster about the topic. */
	private static final Duration PROBE_INTERVAL = Duration.ofSeconds(5);

	private static final Backoff BACKOFF = Backoff.doubling(Duration.ofMillis(200), Duration.ofSeconds(10));

	private final Supplier<Consumer<byte[], byte[]>> consumers;

	private final TopicPartition partition;

	/** How long a request for the topic's end, or for where the reader is, may take. */
	private final Duration timeout;

	/** The reading application, when known. */
	private final Optional<String> application;

	private final ControlTopicProbe probe;

	private final ReadTopicIdentity identity;

	private final ControlRecordListeners listeners = new ControlRecordListeners();

	private final List<Runnable> lateWriteListeners = new CopyOnWriteArrayList<>();

	/** The view queries are answered from: read to the end once, then kept current. */
	private volatile ControlTopicView view;

	/** The view being read from the topic's beginning, which replaces {@link #view} once caught up; reader thread. */
	private ControlTopicView rebuilding;

	/** The offset after the last record applied to the view being read; reader thread. */
	private long nextOffset;

	/** The end of the topic when the current rebuild started; reader thread. */
	private long rebuildEnd;

	private volatile CountDownLatch caughtUp = new CountDownLatch(1);

	private volatile Consumer<byte[], byte[]> consumer;

	private volatile Thread thread;

	private volatile boolean running;

	/** The first offset that is news to listeners: the topic's end when the current rebuild started. */
	private volatile long liveFrom = Long.MAX_VALUE;

	private final AtomicReference<String> readProblem = new AtomicReference<>();

	/**
	 * @param streamsConfig the Kafka Streams config, for bootstrap, security and timeout settings
	 * @param topic the control topic
	 */
	public ControlTopicReader(Map<String, ?> streamsConfig, String topic) {
		this(ControlClients.ofControlTopic(streamsConfig), topic, Optional.empty());
	}

	/**
	 * A reader of an application's own control topic: plans of another application read there are not its own, and
	 * are reported ({@link #sharedWith()}).
	 * @param streamsConfig the Kafka Streams config, for bootstrap, security and timeout settings
	 * @param topic the control topic
	 * @param application the reading application's {@code application.id}
	 */
	public ControlTopicReader(Map<String, ?> streamsConfig, String topic, String application) {
		this(ControlClients.ofControlTopic(streamsConfig), topic, Optional.of(application));
	}

	private ControlTopicReader(ControlClients clients, String topic, Optional<String> application) {
		this(clients::consumer, clients::admin, topic, PROBE_INTERVAL, clients.timeout(), application);
	}

	/** A reader whose clients are made by the given suppliers, for tests that hand it consumers of their own. */
	ControlTopicReader(Supplier<Consumer<byte[], byte[]>> consumers, Supplier<Admin> admins, String topic,
			Duration probeInterval, Duration timeout) {
		this(consumers, admins, topic, probeInterval, timeout, Optional.empty());
	}

	private ControlTopicReader(Supplier<Consumer<byte[], byte[]>> consumers, Supplier<Admin> admins, String topic,
			Duration probeInterval, Duration timeout, Optional<String> application) {
		this.application = application;
		this.consumers = consumers;
		this.partition = new TopicPartition(topic, 0);
		this.timeout = timeout;
		this.probe = new ControlTopicProbe(topic, admins, probeInterval, timeout);
		this.identity = new ReadTopicIdentity(topic, this.probe::described);
		this.view = new ControlTopicView(topic, application);
	}

	/**
	 * Be told of every record written after the reader started reading (on the reader's thread: return fast, never
	 * throw). The topic's history, read again at each start and whenever the reader starts over, is not news and is
	 * not passed on.
	 * @param listener the listener; a tombstone is not passed on
	 * @return what stops telling it (a record being passed on right now may still reach it)
	 */
	public Runnable addListener(java.util.function.Consumer<ControlRecord> listener) {
		this.listeners.add(listener);
		return () -> this.listeners.remove(listener);
	}

	/**
	 * Be told, on the reader's thread, when a former leader's write arrives after a newer plan (see
	 * {@link ControlTopicWriter#mendLateWritesReadBy}): this view ignores it, but once the topic is compacted it
	 * is the last record of its key, which a reader that starts then would take.
	 * @param listener the listener: return fast, never throw
	 */
	public void onLateWrite(Runnable listener) {
		this.lateWriteListeners.add(listener);
	}

	public synchronized void start() {
		if (this.running) {
			return;
		}
		this.running = true;
		this.rebuilding = new ControlTopicView(this.partition.topic(), this.application);
		this.probe.start();
		Thread reader = new Thread(this::read, "incremental-rebalance-control-reader-" + this.partition.topic());
		reader.setDaemon(true);
		this.thread = reader;
		reader.start();
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
		return this.view.leaveRequests();
	}

	/**
	 * The leave record of an instance that matters now: that of the start the current plan holds (else an earlier
	 * start's ended one), or for an instance the plan does not hold, that of the start first heard of last.
	 */
	public Optional<LeaveRecord> leaveRecord(String instanceId) {
		return this.view.leaveRecord(instanceId);
	}

	@Override
	public Optional<LeaveRecord> leaveRecord(String instanceId, String incarnation) {
		return this.view.leaveRecord(instanceId, incarnation);
	}

	public Map<String, LeaveRecord> leaveRecords() {
		return this.view.leaveRecords();
	}

	@Override
	public Optional<PlanRecord> plan(String instanceId, String incarnation) {
		return this.view.plan(instanceId, incarnation);
	}

	/**
	 * The plans of the current epoch, one per member start.
	 * @return the plans, by instance id (then incarnation)
	 */
	@Override
	public List<PlanRecord> plans() {
		return this.view.plans();
	}

	/**
	 * The learners' progress of the members of the current plan: a record of a start that is no longer in the group
	 * (it crashed before deleting it) is left out.
	 * @return the records, by instance id (then incarnation)
	 */
	@Override
	public List<ProgressRecord> progress() {
		return this.view.progress();
	}

	@Override
	public Optional<ProgressRecord> progressOf(StartId start) {
		return this.view.progressOf(start);
	}

	/**
	 * The keys of the progress records read, for the leader's housekeeping.
	 * @return the keys
	 */
	public Set<String> progressKeys() {
		return this.view.progressKeys();
	}

	/**
	 * The id of the topic whose records the view holds, once the cluster described it.
	 * @return the id, empty until then
	 */
	Optional<Uuid> topicId() {
		return this.identity.reading();
	}

	/**
	 * The view as last read, for the leader's housekeeping (plan keys, rejoin requests).
	 */
	ControlTopicView view() {
		return this.view;
	}

	@Override
	public Optional<PlanEpoch> planEpoch() {
		return this.view.planEpoch();
	}

	/**
	 * The application reading this control topic, when it said.
	 * @return its {@code application.id}
	 */
	public Optional<String> application() {
		return this.application;
	}

	/**
	 * The applications other than this one whose plans were read on this control topic.
	 * @return their {@code application.id}s; empty while the topic is this application's alone, or when the reading
	 * application is not known
	 */
	public Set<String> otherApplications() {
		return this.view.otherApplications();
	}

	/**
	 * Whether another application's plans are on this control topic too, and what to do about it: two applications
	 * configured with one control topic (a shared binder configuration, a copied {@code control-topic.name}).
	 * @return the problem, naming both applications; empty while the topic is this application's alone
	 */
	public Optional<String> sharedWith() {
		return this.view.sharedWith();
	}

	/**
	 * Why the control topic cannot be read right now, if it cannot: the reader keeps trying, and the assignor and the
	 * members keep the last view meanwhile.
	 * @return the problem, empty while the topic is read
	 */
	public Optional<String> problem() {
		return this.probe.problem()
			.or(() -> Optional.ofNullable(this.readProblem.get()))
			.or(this.identity::problem);
	}

	/**
	 * Why the view cannot be planned with, if it cannot: it is not read yet, or not read to its end since the reader
	 * started, or started over, or it holds a topic deleted since. A view read to its end once is kept while the topic
	 * cannot be read for a while: it still holds every leave request written before, and no new one can be written
	 * meanwhile ({@link #problem()} says why).
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
		return this.identity.problem();
	}

	/**
	 * Why the view, read to its end, may miss what was written since: the topic has not been readable for its timeout
	 * (the probe reports a problem once the cluster did not describe it within that time, or refused to).
	 * @return the reason, empty while the topic is read or the view is not caught up ({@link #unavailable()} then)
	 */
	@Override
	public Optional<String> outOfDate() {
		if (!this.running || this.caughtUp.getCount() > 0) {
			return Optional.empty();
		}
		return problem();
	}

	/**
	 * Reads until closed. Any error (a consumer that cannot be made, as while the bootstrap address does not resolve or
	 * a keystore is being replaced; a timeout; an authorization error) is reported by {@link #problem()} and logged,
	 * and the reader goes on with a new consumer after a back-off, from where it was; the view read so far is kept.
	 */
	private void read() {
		Backoff backoff = BACKOFF;
		while (reading()) {
			Consumer<byte[], byte[]> reader = null;
			try {
				reader = newConsumer();
				this.consumer = reader;
				if (reading()) {
					readWith(reader);
				}
			}
			catch (InvalidOffsetException ex) {
				startOver("the records after offset " + this.nextOffset + " are gone (" + ex.getMessage() + ")", null);
			}
			catch (WakeupException | InterruptException ex) {
				if (reading()) {
					report(ex);
				}
			}
			catch (RuntimeException ex) {
				if (this.readProblem.get() == null) {
					// it read well until now: a new fault, not the next try of an old one
					backoff = BACKOFF;
				}
				report(ex);
			}
			finally {
				if (reader != null) {
					reader.close(Duration.ofSeconds(5));
				}
			}
			if (!pause(backoff.pause())) {
				return;
			}
			backoff = backoff.next();
		}
	}

	private Consumer<byte[], byte[]> newConsumer() {
		try {
			return this.consumers.get();
		}
		catch (RuntimeException ex) {
			// Kafka says only "Failed to construct kafka consumer"; what failed is its cause
			Throwable why = (ex.getCause() != null) ? ex.getCause() : ex;
			throw new KafkaException("its consumer cannot be made: " + why, ex);
		}
	}

	/**
	 * Whether this thread is the reader of the current start: a thread of an earlier start whose close timed out
	 * stops at its next look, and never reads beside the new one.
	 */
	private boolean reading() {
		return this.running && this.thread == Thread.currentThread();
	}

	private void readWith(Consumer<byte[], byte[]> reader) {
		reader.assign(List.of(this.partition));
		if (this.rebuilding != null) {
			beginRebuild(reader);
		}
		else {
			reader.seek(this.partition, this.nextOffset);
		}
		while (reading()) {
			ConsumerRecords<byte[], byte[]> records = reader.poll(POLL);
			recovered();
			ControlTopicView target = (this.rebuilding != null) ? this.rebuilding : this.view;
			for (ConsumerRecord<byte[], byte[]> record : records) {
				long lateBefore = target.lateWrites();
				Optional<ControlRecord> read = target.apply(record);
				this.nextOffset = record.offset() + 1;
				if (read.isPresent() && record.offset() >= this.liveFrom) {
					this.listeners.tell(read.get());
				}
				if (target.lateWrites() > lateBefore && record.offset() >= this.liveFrom) {
					this.lateWriteListeners.forEach(Runnable::run);
				}
			}
			if (this.rebuilding != null && reader.position(this.partition, this.timeout) >= this.rebuildEnd) {
				this.view = this.rebuilding;
				this.rebuilding = null;
				this.caughtUp.countDown();
			}
			Optional<Uuid> replacedBy = this.identity.replacement();
			if (replacedBy.isPresent()) {
				startOver("the topic was deleted and created again", replacedBy.get());
				beginRebuild(reader);
			}
		}
	}

	/**
	 * Read the topic again from its beginning into a new view: the current one stays for queries until the new one is
	 * caught up, and the reader is not caught up meanwhile.
	 * @param topicId the id of the topic to be read, so that a probe still answering with it is not taken for another
	 * replacement; null when not known (the id of the probe's next answer is taken)
	 */
	private void startOver(String why, Uuid topicId) {
		logger.warn("Reading control topic {} again from its beginning: {}; the last view is kept until then, and not "
				+ "planned with", this.partition.topic(), why);
		// not caught up before the topic's id changes: there is no moment in which the old view passes for current
		if (this.caughtUp.getCount() == 0) {
			this.caughtUp = new CountDownLatch(1);
		}
		this.rebuilding = new ControlTopicView(this.partition.topic(), this.application);
		this.identity.readingNext(topicId);
	}

	private void beginRebuild(Consumer<byte[], byte[]> reader) {
		reader.seekToBeginning(List.of(this.partition));
		this.rebuildEnd = reader.endOffsets(List.of(this.partition), this.timeout).getOrDefault(this.partition, 0L);
		this.liveFrom = this.rebuildEnd;
		this.nextOffset = 0;
	}

	private void report(RuntimeException ex) {
		String now = "control topic " + this.partition.topic() + " cannot be read: " + ControlTopicProbe.why(ex);
		if (!now.equals(this.readProblem.getAndSet(now))) {
			logger.warn("The {}; retrying with back-off, the last view is kept meanwhile", now);
		}
	}

	private void recovered() {
		if (this.readProblem.getAndSet(null) != null) {
			logger.info("Control topic {} is read again", this.partition.topic());
		}
	}

	/**
	 * Wait before the next attempt, or until closed.
	 * @return false when closed meanwhile
	 */
	private boolean pause(Duration backoff) {
		long until = System.nanoTime() + backoff.toNanos();
		while (reading() && System.nanoTime() - until < 0) {
			LockSupport.parkNanos(Math.min(until - System.nanoTime(), POLL.toNanos()));
		}
		return reading();
	}

	@Override
	public synchronized void close() {
		if (!this.running) {
			return;
		}
		this.running = false;
		this.caughtUp = new CountDownLatch(1);
		Consumer<byte[], byte[]> reading = this.consumer;
		if (reading != null) {
			// a consumer being made now sees the reader closed before it reads
			reading.wakeup();
		}
		this.readProblem.set(null);
		try {
			this.thread.join(Duration.ofSeconds(10).toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.probe.close();
	}

}
