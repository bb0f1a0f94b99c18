package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.incrementalrebalance.assignor.ChangelogSizes;
import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.control.ControlClients;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads changelog sizes with an admin client of its own, made when the member first leads a rebalance that weighs
 * by state size: members that never lead never open it. Called by the stream thread that leads the rebalance (the
 * assignor's), closed by the member's close; both are serialized here.
 */
final class ChangelogSizeReader implements ChangelogSizes, AutoCloseable {

	private final ControlClients clients;

	/**
	 * Every member's rebalance waits for this read: a slow cluster costs a round weighed by count (with a WARN), not a
	 * stalled rebalance.
	 */
	private final Duration timeout;

	private Admin admin;

	ChangelogSizeReader(ControlClients clients, Duration timeout) {
		this.clients = clients;
		this.timeout = timeout;
	}

	/**
	 * A reader with clients of its own, made from the member's Kafka Streams config.
	 */
	static ChangelogSizeReader of(MemberContext context) {
		return new ChangelogSizeReader(ControlClients.ofChangelogSizes(context.streamsConfig()),
				context.config().taskWeightTimeout());
	}

	@Override
	public synchronized Map<TopicPartition, Long> records(Set<TopicPartition> partitions) {
		if (partitions.isEmpty()) {
			return Map.of();
		}
		if (this.admin == null) {
			this.admin = this.clients.admin();
		}
		ListOffsetsOptions options = new ListOffsetsOptions().timeoutMs((int) this.timeout.toMillis());
		Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
		Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
		partitions.forEach((partition) -> {
			earliest.put(partition, OffsetSpec.earliest());
			latest.put(partition, OffsetSpec.latest());
		});
		ListOffsetsResult starts = this.admin.listOffsets(earliest, options);
		ListOffsetsResult ends = this.admin.listOffsets(latest, options);
		try {
			long deadline = System.nanoTime() + this.timeout.toNanos();
			Map<TopicPartition, ListOffsetsResultInfo> start = starts.all()
				.get(this.timeout.toNanos(), TimeUnit.NANOSECONDS);
			Map<TopicPartition, ListOffsetsResultInfo> end = ends.all()
				.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			Map<TopicPartition, Long> records = new HashMap<>();
			partitions.forEach((partition) -> records.put(partition,
					Math.max(0, end.get(partition).offset() - start.get(partition).offset())));
			return records;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("interrupted while reading changelog offsets", ex);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof org.apache.kafka.common.errors.TimeoutException) {
				throw tooLate(ex.getCause());
			}
			throw new IllegalStateException("changelog offsets could not be read: " + ex.getCause(), ex.getCause());
		}
		catch (TimeoutException ex) {
			throw tooLate(ex);
		}
	}

	private IllegalStateException tooLate(Throwable cause) {
		return new IllegalStateException("the cluster did not answer for the changelogs' offsets within " + this.timeout
				+ " (" + LearnerConfig.TASK_WEIGHT_TIMEOUT_MS_CONFIG + ")", cause);
	}

	@Override
	public synchronized void close() {
		if (this.admin != null) {
			this.admin.close(Duration.ZERO);
			this.admin = null;
		}
	}

}
