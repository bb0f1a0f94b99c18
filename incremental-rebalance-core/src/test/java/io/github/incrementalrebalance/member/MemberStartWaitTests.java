package io.github.incrementalrebalance.member;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;

import ch.qos.logback.classic.Level;
import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.testkit.CountingTopology;
import io.github.incrementalrebalance.testkit.GapMeter;
import io.github.incrementalrebalance.testkit.LogCapture;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How long a member's start waits for the control topic before Kafka Streams start without it is the control topic's
 * timeout, the application's setting: with no cluster answering, a start allowed 2 s returns after 2 s and says why,
 * naming the setting, where the fixed 10 s this replaced held every start that long whatever the application allowed.
 */
class MemberStartWaitTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(2);

	@TempDir
	Path stateDir;

	@Test
	void aStartWaitsForTheControlTopicAsLongAsTheApplicationAllowsAndSaysWhy() throws IOException {
		Properties properties = new Properties();
		properties.put(StreamsConfig.APPLICATION_ID_CONFIG, "start-wait");
		properties.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:" + closedPort());
		properties.put(StreamsConfig.STATE_DIR_CONFIG, this.stateDir.toString());
		properties.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
		properties.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
		properties.put(LearnerConfig.INSTANCE_ID_CONFIG, "a");
		properties.put(LearnerConfig.CONTROL_TOPIC_TIMEOUT_MS_CONFIG, TIMEOUT.toMillis());
		Topology topology = CountingTopology.build("start-wait-input", "start-wait-output", "a", new GapMeter());
		try (MemberRuntime runtime = MemberRuntime.create(properties);
				KafkaStreams streams = new KafkaStreams(topology, runtime.configure(properties),
						runtime.clientSupplier(new PlainKafkaClients()));
				LogCapture log = LogCapture.of(MemberRuntime.class)) {
			runtime.attach(streams, topology.describe());
			long starting = System.nanoTime();

			runtime.start();

			Duration waited = Duration.ofNanos(System.nanoTime() - starting);
			assertThat(waited).as("waited the application's 2 s, not the fixed 10 s it replaced")
				.isGreaterThanOrEqualTo(TIMEOUT)
				.isLessThan(Duration.ofSeconds(10));
			assertThat(log.messages(Level.WARN)).anySatisfy((warning) -> assertThat(warning)
				.startsWith("Control topic start-wait-rebalance-control not read within PT2S "
						+ "(incremental.rebalance.control.topic.timeout.ms, ")
				.contains("Kafka Streams start meanwhile"));
		}
	}

	/** A port nothing listens on: the cluster is down, every connection is refused. */
	private static int closedPort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
