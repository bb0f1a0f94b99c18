package io.github.incrementalrebalance.control;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the control topic. Every send runs on the writer's one thread ({@code incremental-rebalance-control-writer-
 * <topic>}), in the order asked: a send can wait up to {@link ControlClients#timeout()} for the cluster's metadata,
 * and no caller (a stream thread, the reader's thread, an operator's request) waits with it. A plan not yet written
 * when a newer one arrives is dropped: only the latest matters.
 */
public final class ControlTopicWriter implements ControlWriter, AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(ControlTopicWriter.class);

	private final ControlClients clients;

	/** Made at the first write: a runtime built with the application context needs no cluster until it starts. */
	private KafkaProducer<byte[], byte[]> producer;

	private boolean closed;

	private final String topic;

	private final AtomicReference<PendingPlan> pendingPlan = new AtomicReference<>();

	private final AtomicReference<String> planProblem = new AtomicReference<>();

	/** The plan published last, once it landed. */
	private volatile PendingPlan lastLanded;

	/** Tries in a row that failed for a reason retrying cannot mend; written on the writer's thread only. */
	private int lastingFailures;

	private final ScheduledExecutorService sender;

	/** How many plans were handed to {@link #publishPlan}: a plan that failed is tried again only if it is the last. */
	private final AtomicLong plansHanded = new AtomicLong();

	/**
	 * @param streamsConfig the Kafka Streams config, for bootstrap and security settings
	 * @param topic the control topic
	 */
	public ControlTopicWriter(Map<String, ?> streamsConfig, String topic) {
		this.clients = ControlClients.ofControlTopic(streamsConfig);
		this.topic = topic;
		this.sender = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, "incremental-rebalance-control-writer-" + topic);
			thread.setDaemon(true);
			return thread;
		});
	}

	@Override
	public Duration acknowledgementWait() {
		return this.clients.timeout();
	}

	/**
	 * Write a record.
	 * @param record the record
	 * @return completes when the cluster acknowledged it
	 */
	@Override
	public CompletableFuture<RecordMetadata> write(ControlRecord record) {
		return send(record.key(), ControlCodec.encodeValue(record));
	}

	/**
	 * Write a tombstone: the key's record is gone once compacted (a leave request is cancelled).
	 * @param key the key
	 * @return completes when the cluster acknowledged it
	 */
	@Override
	public CompletableFuture<RecordMetadata> tombstone(String key) {
		return send(key, null);
	}

	/**
	 * Publish the records of a plan in the background; returns at once, so the leader's stream thread never waits
	 * for the cluster. Its tombstones carry the plan's generation, so that readers know them for a former leader's
	 * should they arrive after a newer plan.
	 * @param records the plan's records, the {@link PlanEpoch} last
	 * @param tombstones keys to delete with it
	 * @param superseded whether a newer plan was read meanwhile: a plan that failed is then dropped, not tried again
	 */
	public void publishPlan(List<ControlRecord> records, List<String> tombstones, BooleanSupplier superseded) {
		if (!(records.get(records.size() - 1) instanceof PlanEpoch epoch)) {
			throw new IllegalArgumentException("a plan's records end with its epoch");
		}
		PendingPlan plan = new PendingPlan(List.copyOf(records), epoch, List.copyOf(tombstones), superseded,
				this.plansHanded.incrementAndGet());
		if (this.pendingPlan.getAndSet(plan) == null) {
			try {
				this.sender.execute(this::writePendingPlan);
			}
			catch (RejectedExecutionException closed) {
				this.pendingPlan.set(null);
			}
		}
	}

	/**
	 * Mend what a former leader's late write would leave behind once the topic is compacted: when the reader reads
	 * one, the plan this writer published last is written again if it is still the one held.
	 * @param reader the control topic's reader of the same member
	 */
	public void mendLateWritesReadBy(ControlTopicReader reader) {
		reader.onLateWrite(() -> reader.planEpoch().ifPresent(this::publishAgainIfCurrent));
	}

	/**
	 * Write the plan published last again, if it is still the one the members hold: a former leader's late write
	 * arrived after it, and once the topic is compacted that write would be the last record of its key, the one a
	 * member that starts then, or the command line, reads.
	 * @param held the plan epoch the members hold
	 */
	void publishAgainIfCurrent(PlanEpoch held) {
		try {
			this.sender.execute(() -> {
				PendingPlan landed = this.lastLanded;
				if (landed == null || this.pendingPlan.get() != null || landed.epoch().generation() != held.generation()
						|| !landed.epoch().leader().equals(held.leader())) {
					return;
				}
				logger.info("Publishing the plan of generation {} to {} again: a former leader's write arrived after "
						+ "it, and would be the last record of its key once compacted", held.generation(), this.topic);
				landed.records().forEach((record) -> sendNow(record.key(), ControlCodec.encodeValue(record), null,
						new CompletableFuture<>()));
			});
		}
		catch (RejectedExecutionException closed) {
			// closing: the next leader publishes
		}
	}

	private void writePendingPlan() {
		PendingPlan plan = this.pendingPlan.getAndSet(null);
		if (plan == null) {
			return;
		}
		if (plan.superseded().getAsBoolean()) {
			logger.info("Not publishing the plan of generation {} to {}: a newer plan was published meanwhile",
					plan.epoch().generation(), this.topic);
			this.planProblem.set(null);
			return;
		}
		List<Header> tagged = ControlCodec.planGenerationHeader(plan.epoch().generation());
		List<CompletableFuture<RecordMetadata>> sent = new ArrayList<>();
		plan.records()
			.forEach((record) -> sent.add(sendNow(record.key(), ControlCodec.encodeValue(record), null,
					new CompletableFuture<>())));
		plan.tombstones().forEach((key) -> sent.add(sendNow(key, null, tagged, new CompletableFuture<>())));
		CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).whenCompleteAsync((done, ex) -> {
			if (ex == null) {
				this.lastingFailures = 0;
				this.lastLanded = plan;
				if (this.planProblem.getAndSet(null) != null) {
					logger.info("Plans are published to {} again", this.topic);
				}
				return;
			}
			this.lastingFailures = PlanRetry.isRetriable(ex) ? 0 : this.lastingFailures + 1;
			Duration retry = PlanRetry.after(ex, this.lastingFailures);
			// the same words as the reader's problem: an operator sees what is missing whichever of the two shows first
			String problem = "the last plan could not be published to " + this.topic + ": "
					+ ControlTopicProbe.why(PlanRetry.cause(ex));
			if (!problem.equals(this.planProblem.getAndSet(problem))) {
				logger.warn("{}; trying again until it is, or a newer plan replaces it (after {}, longer while the "
						+ "cause is not one the cluster gets over by itself): until then members act on the plan "
						+ "before it (a leave waits for its hand-over)", problem, retry);
			}
			// the group may not rebalance again for a long time: the plan of its last round must still land
			if (plan.handed() == this.plansHanded.get() && this.pendingPlan.compareAndSet(null, plan)) {
				try {
					this.sender.schedule(this::writePendingPlan, retry.toMillis(), TimeUnit.MILLISECONDS);
				}
				catch (RejectedExecutionException closed) {
					this.pendingPlan.set(null);
				}
			}
		}, this::runOnSender);
	}

	private void runOnSender(Runnable task) {
		try {
			this.sender.execute(task);
		}
		catch (RejectedExecutionException closed) {
			this.pendingPlan.set(null);
		}
	}

	/**
	 * Why the plans this instance computes as leader cannot be published, if the last one could not.
	 * @return the problem, empty once a plan was published
	 */
	public Optional<String> problem() {
		return Optional.ofNullable(this.planProblem.get());
	}

	private CompletableFuture<RecordMetadata> send(String key, byte[] value) {
		CompletableFuture<RecordMetadata> written = new CompletableFuture<>();
		try {
			this.sender.execute(() -> sendNow(key, value, null, written));
		}
		catch (RejectedExecutionException closed) {
			written.completeExceptionally(new IllegalStateException("the control topic writer is closed"));
		}
		return written;
	}

	/**
	 * Send on the writer's thread.
	 */
	private CompletableFuture<RecordMetadata> sendNow(String key, byte[] value, List<Header> headers,
			CompletableFuture<RecordMetadata> written) {
		try {
			producer().send(new ProducerRecord<>(this.topic, 0, ControlCodec.encodeKey(key), value, headers),
					(metadata, exception) -> {
						if (exception != null) {
							written.completeExceptionally(exception);
						}
						else {
							written.complete(metadata);
						}
					});
		}
		catch (RuntimeException ex) {
			written.completeExceptionally(ex);
		}
		return written;
	}

	private synchronized KafkaProducer<byte[], byte[]> producer() {
		if (this.closed) {
			throw new IllegalStateException("the control topic writer is closed");
		}
		if (this.producer == null) {
			this.producer = this.clients.producer();
		}
		return this.producer;
	}

	@Override
	public boolean isOpen() {
		return !this.sender.isShutdown();
	}

	/**
	 * Close once the writes handed to it landed or failed, within the control topic's timeout in all: a leave's end
	 * written as the member closes (a pod's drain on SIGTERM) still lands through a short outage of the cluster.
	 */
	@Override
	public void close() {
		long deadline = System.nanoTime() + this.clients.timeout().toNanos();
		this.sender.shutdown();
		try {
			this.sender.awaitTermination(this.clients.timeout().toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		KafkaProducer<byte[], byte[]> made;
		synchronized (this) {
			this.closed = true;
			made = this.producer;
		}
		if (made != null) {
			made.close(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
		}
	}

	/**
	 * @param epoch the plan's epoch, the last of its records
	 * @param handed which plan handed to the writer it is, counted from 1
	 */
	private record PendingPlan(List<ControlRecord> records, PlanEpoch epoch, List<String> tombstones,
			BooleanSupplier superseded, long handed) {
	}

}
