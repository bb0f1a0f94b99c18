package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.incrementalrebalance.identity.MemberIdentity;
import io.github.incrementalrebalance.planner.RebalancingMode;
import io.github.incrementalrebalance.control.ControlRecord;
import io.github.incrementalrebalance.control.ControlWriter;
import io.github.incrementalrebalance.control.ProgressRecord;
import io.github.incrementalrebalance.testkit.MutableClock;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LearnerProgressReporterTests {

	private static final Instant START = Instant.parse("2026-12-01T10:00:00Z");

	private final MutableClock clock = new MutableClock(START);

	private final MemberIdentity identity = MemberIdentity.newIncarnation("b", RebalancingMode.INCREMENTAL, START);

	private final RecordingWriter writer = new RecordingWriter();

	private final LearnerProgressReporter reporter = new LearnerProgressReporter(this.identity, this.writer,
			new LearnerProgressTracker(1_000), Duration.ofSeconds(2), new MemberClocks(this.clock, this.clock));

	private final AtomicInteger lagReads = new AtomicInteger();

	private long lag = 50_000;

	@Test
	void publishesOneRecordPerIntervalWhileItHasLearnersThenDeletesIt() {
		Set<TaskId> learning = Set.of(TaskId.parse("0_1"));
		for (int check = 0; check < 17; check++) {
			this.reporter.check(learning, this::lags);
			this.clock.advance(Duration.ofMillis(250));
			this.lag -= 1_250;
		}
		assertThat(this.lagReads).as("a lag read every other check of 250 ms").hasValue(9);
		assertThat(this.writer.written).as("at 0, 2 and 4 s").hasSize(3);
		ProgressRecord last = (ProgressRecord) this.writer.written.get(2);
		assertThat(last.key()).isEqualTo(ProgressRecord.keyOf("b", this.identity.incarnation()));
		assertThat(last.at()).isEqualTo(START.plusSeconds(4));
		assertThat(last.learners()).singleElement().satisfies((learner) -> {
			assertThat(learner.task()).isEqualTo("0_1");
			assertThat(learner.recordsPerSecond()).as("1 250 records each 250 ms").isEqualTo(5_000);
			assertThat(learner.eta()).as("(30 000 - 500) records at 5 000 a second")
				.contains(Duration.ofMillis(5_900));
		});
		assertThat(this.reporter.current()).isNotEmpty();

		this.reporter.check(Set.of(), this::lags);
		this.reporter.check(Set.of(), this::lags);
		assertThat(this.writer.tombstones).as("deleted once").containsExactly(last.key());
		assertThat(this.reporter.current()).isEmpty();
		assertThat(this.lagReads).as("no lag read without learners").hasValue(9);
	}

	@Test
	void aMemberThatNeverHadLearnersWritesNothing() {
		this.reporter.check(Set.of(), this::lags);
		this.reporter.check(Set.of(), this::lags);
		assertThat(this.writer.written).isEmpty();
		assertThat(this.writer.tombstones).isEmpty();
		assertThat(this.lagReads).hasValue(0);
	}

	private Map<TaskId, Long> lags() {
		this.lagReads.incrementAndGet();
		return Map.of(new TaskId(0, 1), this.lag);
	}

	private static final class RecordingWriter implements ControlWriter {

		@Override
		public Duration acknowledgementWait() {
			return Duration.ofSeconds(1);
		}

		final List<ControlRecord> written = new CopyOnWriteArrayList<>();

		final List<String> tombstones = new CopyOnWriteArrayList<>();

		@Override
		public CompletableFuture<?> write(ControlRecord record) {
			this.written.add(record);
			return CompletableFuture.completedFuture(null);
		}

		@Override
		public CompletableFuture<?> tombstone(String key) {
			this.tombstones.add(key);
			return CompletableFuture.completedFuture(null);
		}

	}

}
