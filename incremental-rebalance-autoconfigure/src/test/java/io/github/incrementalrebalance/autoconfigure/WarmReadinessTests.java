package io.github.incrementalrebalance.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

import ch.qos.logback.classic.Level;
import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.PlainKafkaClients;
import io.github.incrementalrebalance.testkit.LogCapture;
import io.github.incrementalrebalance.testkit.MutableClock;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

class WarmReadinessTests {

	private final List<AutoCloseable> opened = new ArrayList<>();

	@TempDir
	Path stateDirs;

	@AfterEach
	void close() throws Exception {
		for (AutoCloseable closeable : this.opened) {
			closeable.close();
		}
	}

	@Test
	void aMemberUnderTheStreamsProtocolIsReadyAtOnceAndSaysWarmReadinessCannotHoldItBack() {
		MemberRuntime classic = attached("classic");
		MemberRuntime streams = attached("streams");
		try (LogCapture log = LogCapture.of(WarmReadiness.class)) {
			assertThat(new WarmReadiness(() -> List.of(classic), Duration.ofMinutes(10), Clock.systemUTC()).warm())
				.as("no plan names the classic member yet").isFalse();
			assertThat(new WarmReadiness(() -> List.of(streams), Duration.ofMinutes(10), Clock.systemUTC()).warm())
				.isTrue();
			assertThat(log.messages(Level.WARN)).singleElement()
				.satisfies((warning) -> assertThat(warning).contains("under group.protocol=streams")
					.contains("readiness.warm cannot hold it back"));
		}
	}

	/**
	 * {@code auto-startup=false}: the application starts its Kafka Streams itself, maybe much later. Until then there
	 * is nothing to warm, and the bound counts from when they run, not from the application's start.
	 */
	@Test
	void aMemberWhoseKafkaStreamsHaveNotStartedHoldsNothingBackAndItsBoundCountsFromTheirStart() {
		MemberRuntime member = runtime("classic");
		MutableClock clock = new MutableClock(Instant.parse("2026-12-07T10:00:00Z"));
		WarmReadiness readiness = new WarmReadiness(() -> List.of(member), Duration.ofMinutes(10), clock);
		try (LogCapture log = LogCapture.of(WarmReadiness.class)) {
			assertThat(readiness.warm()).as("not started: nothing to warm").isTrue();
			clock.advance(Duration.ofMinutes(30));
			attach(member);
			assertThat(readiness.warm()).as("started: no plan names it yet").isFalse();
			clock.advance(Duration.ofMinutes(9));
			assertThat(readiness.warm()).as("9 minutes after its start").isFalse();
			assertThat(log.messages(Level.WARN)).isEmpty();
			clock.advance(Duration.ofMinutes(1));
			assertThat(readiness.warm()).as("10 minutes after its start").isTrue();
			assertThat(log.messages(Level.WARN)).singleElement().asString().contains("without being warm");
		}
	}

	private MemberRuntime attached(String protocol) {
		return attach(runtime(protocol));
	}

	private MemberRuntime runtime(String protocol) {
		Properties config = new Properties();
		config.put(StreamsConfig.APPLICATION_ID_CONFIG, "warm");
		config.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1");
		config.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, protocol);
		MemberRuntime runtime = MemberRuntime.create(config);
		runtime.configure(config);
		this.opened.add(runtime);
		return runtime;
	}

	/** Kafka Streams built with the runtime and attached, not started: they never reach the (absent) cluster. */
	private MemberRuntime attach(MemberRuntime runtime) {
		Properties config = new Properties();
		config.put(StreamsConfig.APPLICATION_ID_CONFIG, "warm");
		config.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1");
		config.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, runtime.groupProtocol().name().toLowerCase(Locale.ROOT));
		config.put(StreamsConfig.STATE_DIR_CONFIG, this.stateDirs.resolve(String.valueOf(this.opened.size())).toString());
		StreamsBuilder builder = new StreamsBuilder();
		builder.stream("in").to("out");
		Topology topology = builder.build();
		KafkaStreams streams = new KafkaStreams(topology, runtime.configure(config),
				runtime.clientSupplier(new PlainKafkaClients()));
		this.opened.add(streams);
		runtime.attach(streams, topology.describe());
		return runtime;
	}

}
