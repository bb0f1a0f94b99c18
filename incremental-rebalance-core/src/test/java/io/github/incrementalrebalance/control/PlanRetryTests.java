package io.github.incrementalrebalance.control;

import java.time.Duration;
import java.util.concurrent.CompletionException;

import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PlanRetryTests {

	@Test
	void aFailureTheClusterGetsOverByItselfIsTriedAgainEverySecond() {
		CompletionException cut = new CompletionException(new TimeoutException("Topic not present in metadata"));
		assertThat(PlanRetry.after(cut, 1)).isEqualTo(Duration.ofSeconds(1));
		assertThat(PlanRetry.after(new NotLeaderOrFollowerException("moved"), 1)).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void aFailureOnlyAnOperatorCanMendBacksOffDoublingUpToAMinute() {
		CompletionException noAcl = new CompletionException(new TopicAuthorizationException("no WRITE"));
		assertThat(PlanRetry.isRetriable(noAcl)).isFalse();
		assertThat(PlanRetry.after(noAcl, 1)).isEqualTo(Duration.ofSeconds(1));
		assertThat(PlanRetry.after(noAcl, 2)).isEqualTo(Duration.ofSeconds(2));
		assertThat(PlanRetry.after(noAcl, 6)).isEqualTo(Duration.ofSeconds(32));
		assertThat(PlanRetry.after(noAcl, 7)).isEqualTo(Duration.ofMinutes(1));
		assertThat(PlanRetry.after(new RecordTooLargeException("1 MB"), 40)).isEqualTo(Duration.ofMinutes(1));
	}

}
