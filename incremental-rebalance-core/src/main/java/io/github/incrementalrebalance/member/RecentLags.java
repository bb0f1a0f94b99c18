package io.github.incrementalrebalance.member;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import org.apache.kafka.streams.processor.TaskId;

/**
 * The local lags, read at most once per {@link #FRESH_FOR}: each read asks the cluster for the changelogs' end offsets,
 * and the learner watcher and the progress reporter both want them on the same check. Only the member's own threads
 * read ({@link #get()}); the application's threads (the endpoint, the live page, a metrics scrape) take the last
 * sample ({@link #last()}) and the member reads a new one at its next check, so that a cluster that does not answer
 * holds none of their threads (nor a web server's graceful shutdown).
 */
final class RecentLags implements Supplier<Map<TaskId, Long>> {

	static final Duration FRESH_FOR = Duration.ofMillis(200);

	private final Supplier<Map<TaskId, Long>> read;

	private final Clock clock;

	private volatile Sample sample;

	/** Whether someone took a sample that was stale, or none: the next check reads. */
	private volatile boolean wanted;

	RecentLags(Supplier<Map<TaskId, Long>> read, Clock clock) {
		this.read = read;
		this.clock = clock;
	}

	/**
	 * The lags, read now when the last sample is older than {@link #FRESH_FOR}; on the member's own threads.
	 * @return the lags by task
	 */
	@Override
	public synchronized Map<TaskId, Long> get() {
		Instant now = this.clock.instant();
		Sample last = this.sample;
		if (last == null || !now.isBefore(last.readAt().plus(FRESH_FOR))) {
			this.wanted = false;
			last = new Sample(Map.copyOf(this.read.get()), now);
			this.sample = last;
		}
		return last.lags();
	}

	/**
	 * The last sample, without asking the cluster; when it is stale, the member's next check reads a new one.
	 * @return the sample, empty before the first
	 */
	Optional<Sample> last() {
		Sample last = this.sample;
		if (last == null || !this.clock.instant().isBefore(last.readAt().plus(FRESH_FOR))) {
			this.wanted = true;
		}
		return Optional.ofNullable(last);
	}

	/**
	 * When the last sample was read, without asking for a new one.
	 * @return the moment, by the member's clock; empty before the first read
	 */
	Optional<Instant> readAt() {
		return Optional.ofNullable(this.sample).map(Sample::readAt);
	}

	/**
	 * Read a new sample if someone took a stale one since the last read; on the member's check thread.
	 */
	void readIfWanted() {
		if (this.wanted) {
			get();
		}
	}

	/**
	 * Lags as read at one moment.
	 * @param lags the lags by task
	 * @param readAt when they were read, by the member's clock
	 */
	record Sample(Map<TaskId, Long> lags, Instant readAt) {
	}

}
