package io.github.incrementalrebalance.sample;

import java.util.Map;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

class RestoreRateLimitTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(RestoreRateLimit.class);

	@Test
	void restoresRunAtFullSpeedUnlessARateIsSet() {
		this.runner.run((context) -> assertThat(restoreConsumer(context))
			.isNotInstanceOf(RestoreRateLimit.RateLimitedConsumer.class));
		this.runner.withPropertyValues("sample.restore-rate=4000")
			.run((context) -> assertThat(restoreConsumer(context))
				.isInstanceOf(RestoreRateLimit.RateLimitedConsumer.class));
	}

	private static Consumer<byte[], byte[]> restoreConsumer(AssertableApplicationContext context) {
		Consumer<byte[], byte[]> consumer = context.getBean(KafkaClientSupplier.class)
			.getRestoreConsumer(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092"));
		consumer.close();
		return consumer;
	}

	@Test
	void aRateBelowOneRecordASecondStopsTheStartSayingWhatIsAccepted() {
		this.runner.withPropertyValues("sample.restore-rate=0")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessage("sample.restore-rate must be at least 1 record per second (or unset for full speed), was 0"));
	}

}
