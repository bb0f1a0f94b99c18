package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.incrementalrebalance.assignor.ChangelogSizes;
import io.github.incrementalrebalance.control.ControlClients;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads changelog sizes with an admin client of its own, made when the member first leads a rebalance that weighs
 * by state size: members that never lead never open it.
 */
final class ChangelogSizeReader implements ChangelogSizes, AutoCloseable {

	/**
	 * The rebalance waits for this read: a slow broker costs a round weighed by count (with a WARN), not a stalled
	 * rebalance.
	 */
	static final Duration TIMEOUT = Duration.ofSeconds(5);

	private final ControlClients clients;

	private Admin admin;

	ChangelogSizeReader(ControlClients clients) {
		this.clients = clients;
	}

	/**
	 * A reader with clients of its own, made from the member's Kafka Streams config.
	 */
	static ChangelogSizeReader of(MemberContext context) {
		return new ChangelogSizeReader(ControlClients.ofChangelogSizes(context.streamsConfig()));
	}

	@Override
	public synchronized Map<TopicPartition, Long> records(Set<TopicPartition> partitions) {
		if (partitions.isEmpty()) {
			return Map.of();
		}
		if (this.admin == null) {
			this.admin = this.clients.admin();
		}
		ListOffsetsOptions options = new ListOffsetsOptions().timeoutMs((int) TIMEOUT.toMillis());
		Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
		Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
		partitions.forEach((partition) -> {
			earliest.put(partition, OffsetSpec.earliest());
			latest.put(partition, OffsetSpec.latest());
		});
		ListOffsetsResult starts = this.admin.listOffsets(earliest, options);
		ListOffsetsResult ends = this.admin.listOffsets(latest, options);
		try {
			long deadline = System.nanoTime() + TIMEOUT.toNanos();
			Map<TopicPartition, ListOffsetsResultInfo> start = starts.all().get(TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
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
			throw new IllegalStateException("changelog offsets could not be read: " + ex.getCause(), ex.getCause());
		}
		catch (TimeoutException ex) {
			throw new IllegalStateException("changelog offsets were not read within " + TIMEOUT.toMillis() + " ms", ex);
		}
	}

	@Override
	public synchronized void close() {
		if (this.admin != null) {
			this.admin.close(Duration.ZERO);
			this.admin = null;
		}
	}

}
