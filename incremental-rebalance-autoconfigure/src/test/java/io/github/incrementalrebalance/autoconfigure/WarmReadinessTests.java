package io.github.incrementalrebalance.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

import ch.qos.logback.classic.Level;
import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.testkit.LogCapture;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class WarmReadinessTests {

	@Test
	void aMemberUnderTheStreamsProtocolIsReadyAtOnceAndSaysWarmReadinessCannotHoldItBack() {
		try (MemberRuntime classic = runtime("classic"); MemberRuntime streams = runtime("streams");
				LogCapture log = LogCapture.of(WarmReadiness.class)) {
			assertThat(new WarmReadiness(() -> List.of(classic), Duration.ofMinutes(10), Clock.systemUTC()).warm())
				.as("no plan names the classic member yet").isFalse();
			assertThat(new WarmReadiness(() -> List.of(streams), Duration.ofMinutes(10), Clock.systemUTC()).warm())
				.isTrue();
			assertThat(log.messages(Level.WARN)).singleElement()
				.satisfies((warning) -> assertThat(warning).contains("under group.protocol=streams")
					.contains("readiness.warm cannot hold it back"));
		}
	}

	private static MemberRuntime runtime(String protocol) {
		Properties config = new Properties();
		config.put(StreamsConfig.APPLICATION_ID_CONFIG, "warm");
		config.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1");
		config.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, protocol);
		MemberRuntime runtime = MemberRuntime.create(config);
		runtime.configure(config);
		return runtime;
	}

}
