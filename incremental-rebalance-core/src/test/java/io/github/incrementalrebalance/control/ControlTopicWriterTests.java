package io.github.incrementalrebalance.control;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.github.incrementalrebalance.config.LearnerConfig;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The writer never makes its caller wait for the cluster, and a write nobody answers within the control topic's timeout
 * is reported as unknown, never as refused. Against an address where no broker listens: the producer waits there for
 * metadata that never comes.
 */
class ControlTopicWriterTests {

	@Test
	void aWriteReturnsAtOnceWhileTheClusterCannotBeReachedAndItsOutcomeIsThenUnknown() {
		Duration timeout = Duration.ofSeconds(4);
		Map<String, Object> config = Map.of("application.id", "unreachable", "bootstrap.servers", "127.0.0.1:9",
				LearnerConfig.CONTROL_TOPIC_TIMEOUT_MS_CONFIG, timeout.toMillis());
		try (ControlTopicWriter writer = new ControlTopicWriter(config, "unreachable-rebalance-control")) {
			LeaveRecord request = LeaveRecord.request("a", "a1", Instant.now(), Optional.empty(), "test");
			// loaded before the clock starts: the first encoding loads the codec's classes, which on a busy machine
			// took longer than the hand-off this measures
			ControlCodec.encodeValue(request);
			long started = System.nanoTime();
			CompletableFuture<?> written = writer.write(request);
			Duration returnedAfter = Duration.ofNanos(System.nanoTime() - started);
			// waiting for the metadata would take the producer's whole max.block.ms
			assertThat(returnedAfter).as("the caller did not wait for the cluster's metadata")
				.isLessThan(timeout.dividedBy(2));
			assertThat(written).isNotDone();

			assertThatExceptionOfType(ControlWriteException.class)
				.isThrownBy(() -> writer.writeAndWait(request, "write the leave request"))
				.withMessageContaining("Tried to write the leave request: no answer from the control topic within PT4S "
						+ "(incremental.rebalance.control.topic.timeout.ms), so whether it was written is unknown")
				.matches(ControlWriteException::outcomeUnknown, "outcome unknown");
		}
	}

}
