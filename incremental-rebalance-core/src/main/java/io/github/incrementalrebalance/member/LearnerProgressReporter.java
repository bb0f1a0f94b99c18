package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.github.incrementalrebalance.identity.MemberIdentity;
import io.github.incrementalrebalance.control.ControlWriter;
import io.github.incrementalrebalance.control.ProgressRecord.LearnerProgress;
import io.github.incrementalrebalance.control.ProgressRecord;
import org.apache.kafka.streams.processor.TaskId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Samples this member's learners while the plan gives it some, and publishes their progress on the control topic
 * every progress interval, one small record per member, so that any instance can show the group's learners and when
 * a drain will end; deletes the record once the member has no learner left. Nothing is read or written while it has
 * none.
 */
final class LearnerProgressReporter {

	private static final Logger logger = LoggerFactory.getLogger(LearnerProgressReporter.class);

	/** Lag reads are a call to the cluster: twice a second is enough for a rate over ten seconds. */
	static final Duration SAMPLE_SPACING = Duration.ofMillis(500);

	private final MemberIdentity identity;

	private final ControlWriter writer;

	private final LearnerProgressTracker tracker;

	private final Duration interval;

	private final MemberClocks clocks;

	private final List<Consumer<List<LearnerProgress>>> listeners = new CopyOnWriteArrayList<>();

	private final AtomicBoolean writeFailed = new AtomicBoolean();

	private volatile List<LearnerProgress> current = List.of();

	private Instant lastSample = Instant.EPOCH;

	private Instant lastPublished = Instant.EPOCH;

	private boolean published;

	LearnerProgressReporter(MemberIdentity identity, ControlWriter writer, LearnerProgressTracker tracker,
			Duration interval, MemberClocks clocks) {
		this.identity = identity;
		this.writer = writer;
		this.tracker = tracker;
		this.interval = interval;
		this.clocks = clocks;
	}

	/**
	 * Sample and publish when due.
	 * @param learners this member's learners: those its plan gives it, or under the streams protocol its standbys
	 * @param lags reads the local lags (a call to the cluster), only when a sample is due
	 */
	void check(Set<TaskId> learners, Supplier<Map<TaskId, Long>> lags) {
		if (learners.isEmpty()) {
			if (this.published) {
				this.published = false;
				this.writer.tombstone(ProgressRecord.keyOf(this.identity.instanceId(), this.identity.incarnation()))
					.whenComplete(this::written);
			}
			if (!this.current.isEmpty()) {
				update(this.tracker.sample(this.clocks.elapsed().instant(), learners, Map.of()));
			}
			return;
		}
		Instant now = this.clocks.elapsed().instant();
		if (now.isBefore(this.lastSample.plus(SAMPLE_SPACING))) {
			return;
		}
		this.lastSample = now;
		update(this.tracker.sample(now, learners, lags.get()));
		if (!now.isBefore(this.lastPublished.plus(this.interval))) {
			this.lastPublished = now;
			this.published = true;
			this.writer.write(new ProgressRecord(this.identity.instanceId(), this.identity.incarnation(),
					this.clocks.wall().instant(), this.current))
				.whenComplete(this::written);
		}
	}

	/**
	 * The last sample of this member's learners.
	 * @return their progress, empty without learners
	 */
	List<LearnerProgress> current() {
		return this.current;
	}

	/**
	 * Be told of every sample.
	 * @param listener gets the learners' progress, empty once the member has none
	 */
	void addListener(Consumer<List<LearnerProgress>> listener) {
		this.listeners.add(listener);
	}

	private void update(List<LearnerProgress> progress) {
		this.current = progress;
		this.listeners.forEach((listener) -> listener.accept(progress));
	}

	private void written(Object result, Throwable failure) {
		if (failure == null) {
			if (this.writeFailed.compareAndSet(true, false)) {
				logger.info("Learner progress of {} is written to the control topic again", this.identity.instanceId());
			}
		}
		else if (this.writeFailed.compareAndSet(false, true)) {
			logger.warn("Cannot write the learner progress of {} to the control topic (other instances do not see it "
					+ "until a write succeeds): {}", this.identity.instanceId(), failure.toString());
		}
	}

}
