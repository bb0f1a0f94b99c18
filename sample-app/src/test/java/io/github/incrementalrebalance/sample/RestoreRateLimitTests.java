package io.github.incrementalrebalance.sample;

import org.apache.kafka.streams.KafkaClientSupplier;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

class RestoreRateLimitTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(RestoreRateLimit.class);

	@Test
	void restoresRunAtFullSpeedUnlessARateIsSet() {
		this.runner.run((context) -> assertThat(context).doesNotHaveBean(KafkaClientSupplier.class));
		this.runner.withPropertyValues("sample.restore-rate=4000")
			.run((context) -> assertThat(context).hasSingleBean(KafkaClientSupplier.class));
	}

	@Test
	void aRateBelowOneRecordASecondStopsTheStartSayingWhatIsAccepted() {
		this.runner.withPropertyValues("sample.restore-rate=0")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessage("sample.restore-rate must be at least 1 record per second (or unset for full speed), was 0"));
	}

}
