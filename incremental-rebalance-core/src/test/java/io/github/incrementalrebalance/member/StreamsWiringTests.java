package io.github.incrementalrebalance.member;

import java.util.Properties;

import io.github.incrementalrebalance.assignor.LearnerTaskAssignor;
import io.github.incrementalrebalance.config.LearnerConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the library puts into an application's Kafka Streams config, and what it leaves as the application set it.
 */
class StreamsWiringTests {

	private static final String MAIN_FETCH_WAIT = StreamsConfig
		.mainConsumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG);

	private static final String RESTORE_FETCH_WAIT = StreamsConfig
		.restoreConsumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG);

	@Test
	void learnersAndStreamThreadsFetchWithAShortWaitSoThatAHandOverIsNotHeldByALongPoll() {
		Properties configured = configure(application());

		assertThat(configured).containsEntry(StreamsConfig.TASK_ASSIGNOR_CLASS_CONFIG,
				LearnerTaskAssignor.class.getName());
		assertThat(configured).containsEntry(MAIN_FETCH_WAIT, StreamsWiring.FETCH_MAX_WAIT_MS)
			.containsEntry(RESTORE_FETCH_WAIT, StreamsWiring.FETCH_MAX_WAIT_MS);
		assertThat(configured).doesNotContainKeys(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG,
				StreamsConfig.consumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG));
		assertThat(configured).as("a stream thread sees a task it was given within a short poll")
			.containsEntry(StreamsConfig.POLL_MS_CONFIG, StreamsWiring.POLL_MS);
	}

	@Test
	void theApplicationsPollIsKept() {
		Properties application = application();
		application.put(StreamsConfig.POLL_MS_CONFIG, "250");

		assertThat(configure(application)).containsEntry(StreamsConfig.POLL_MS_CONFIG, "250");
	}

	@ParameterizedTest
	@ValueSource(strings = { "fetch.max.wait.ms", "consumer.fetch.max.wait.ms" })
	void theApplicationsFetchWaitForEveryConsumerIsKept(String key) {
		Properties application = application();
		application.put(key, 250);

		Properties configured = configure(application);

		assertThat(configured).containsEntry(key, 250);
		assertThat(configured).as("no key that overrides the application's")
			.doesNotContainKeys(MAIN_FETCH_WAIT, RESTORE_FETCH_WAIT);
	}

	@ParameterizedTest
	@ValueSource(strings = { "main.consumer.fetch.max.wait.ms", "restore.consumer.fetch.max.wait.ms" })
	void theApplicationsFetchWaitForOneConsumerIsKeptAndTheOtherIsShortened(String key) {
		Properties application = application();
		application.put(key, 250);

		Properties configured = configure(application);

		assertThat(configured).containsEntry(key, 250);
		String other = key.equals(MAIN_FETCH_WAIT) ? RESTORE_FETCH_WAIT : MAIN_FETCH_WAIT;
		assertThat(configured).containsEntry(other, StreamsWiring.FETCH_MAX_WAIT_MS);
	}

	@Test
	void inModeUpgradingKafkasOwnAssignorRunsWithKafkasOwnFetchWait() {
		Properties application = application();
		application.put(LearnerConfig.REBALANCING_MODE_CONFIG, "upgrading");

		Properties configured = configure(application);

		assertThat(configured).doesNotContainKeys(StreamsConfig.TASK_ASSIGNOR_CLASS_CONFIG, MAIN_FETCH_WAIT,
				RESTORE_FETCH_WAIT, StreamsConfig.POLL_MS_CONFIG);
	}

	private static Properties configure(Properties application) {
		try (MemberRuntime runtime = MemberRuntime.create(application)) {
			return runtime.configure(application);
		}
	}

	private static Properties application() {
		Properties properties = new Properties();
		properties.put(StreamsConfig.APPLICATION_ID_CONFIG, "wiring");
		properties.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9");
		properties.put(LearnerConfig.INSTANCE_ID_CONFIG, "a");
		return properties;
	}

}
