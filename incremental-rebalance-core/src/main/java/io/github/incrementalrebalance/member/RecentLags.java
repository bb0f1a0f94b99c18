package io.github.incrementalrebalance.member;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.function.Supplier;

import org.apache.kafka.streams.processor.TaskId;

/**
 * The local lags, read at most once per {@link #FRESH_FOR}: each read asks the cluster for the changelogs' end offsets,
 * and the learner watcher and the progress reporter both want them on the same check.
 */
final class RecentLags implements Supplier<Map<TaskId, Long>> {

	static final Duration FRESH_FOR = Duration.ofMillis(200);

	private final Supplier<Map<TaskId, Long>> read;

	private final Clock clock;

	private Map<TaskId, Long> lags = Map.of();

	private Instant readAt = Instant.EPOCH;

	RecentLags(Supplier<Map<TaskId, Long>> read, Clock clock) {
		this.read = read;
		this.clock = clock;
	}

	@Override
	public synchronized Map<TaskId, Long> get() {
		Instant now = this.clock.instant();
		if (!now.isBefore(this.readAt.plus(FRESH_FOR))) {
			this.lags = Map.copyOf(this.read.get());
			this.readAt = now;
		}
		return this.lags;
	}

}
