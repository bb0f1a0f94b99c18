package io.github.incrementalrebalance.member;

import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Stream;

import io.github.incrementalrebalance.control.ProgressRecord.LearnerProgress;
import io.github.incrementalrebalance.planner.MemberPlan;
import io.github.incrementalrebalance.testkit.MemberPlanBuilder;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * What the tasks endpoint reads: a learner is ready at the lag this member's watcher moves it at and its progress
 * records and the live page say ready at, half of {@code acceptable.recovery.lag}, not at the leader's threshold.
 */
class LocalTasksTests {

	private static final long ACCEPTABLE_LAG = 10_000;

	@TempDir
	Path stateDir;

	@Test
	void aLearnerIsReadyAtTheLagTheMemberActsOnAsItsProgressSays() {
		Topology topology = topology();
		TaskId atHalf = new TaskId(0, 0);
		TaskId aboveHalf = new TaskId(0, 1);
		TaskId standby = new TaskId(0, 2);
		Map<TaskId, Long> lags = Map.of(atHalf, ACCEPTABLE_LAG / 2, aboveHalf, ACCEPTABLE_LAG / 2 + 1, standby, 0L);
		try (KafkaStreams streams = new KafkaStreams(topology, config()) {

			@Override
			public Set<ThreadMetadata> metadataForLocalThreads() {
				return Set.of(threadWithStandbys(atHalf, aboveHalf, standby));
			}

		}) {
			LocalTasks tasks = new LocalTasks(streams, topology.describe(), ACCEPTABLE_LAG, Clock.systemUTC(),
					() -> lags);
			tasks.lags().get();
			MemberPlan plan = MemberPlanBuilder.plan("m", "m1").learning("0_0", 0).learning("0_1", 0).build();

			assertThat(tasks.tasks(Optional.of(plan))).extracting(TaskState::task, TaskState::role, TaskState::ready)
				.containsExactly(tuple(atHalf, TaskRole.LEARNING, true), tuple(aboveHalf, TaskRole.LEARNING, false),
						tuple(standby, TaskRole.STANDBY, false));
			assertThat(new LearnerProgressTracker(ACCEPTABLE_LAG).sample(Instant.now(), Set.of(atHalf, aboveHalf), lags))
				.as("the progress records the page shows, of the same lags")
				.extracting(LearnerProgress::task, LearnerProgress::ready)
				.containsExactly(tuple("0_0", true), tuple("0_1", false));
			streams.close(Duration.ZERO);
		}
	}

	private Properties config() {
		Properties config = new Properties();
		config.put(StreamsConfig.APPLICATION_ID_CONFIG, "local-tasks");
		config.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1");
		config.put(StreamsConfig.STATE_DIR_CONFIG, this.stateDir.toString());
		return config;
	}

	private static Topology topology() {
		StreamsBuilder builder = new StreamsBuilder();
		builder.table("in", Consumed.with(Serdes.String(), Serdes.String()));
		return builder.build();
	}

	/** Kafka's metadata types are interfaces whose methods grow between releases: answer only what is asked here. */
	private static ThreadMetadata threadWithStandbys(TaskId... standbys) {
		Set<TaskMetadata> tasks = Set.of(Stream.of(standbys).map(LocalTasksTests::task).toArray(TaskMetadata[]::new));
		return (ThreadMetadata) Proxy.newProxyInstance(LocalTasksTests.class.getClassLoader(),
				new Class<?>[] { ThreadMetadata.class }, (proxy, method, args) -> switch (method.getName()) {
					case "standbyTasks" -> tasks;
					case "activeTasks" -> Set.of();
					case "hashCode" -> System.identityHashCode(proxy);
					case "equals" -> proxy == args[0];
					default -> throw new UnsupportedOperationException(method.getName());
				});
	}

	private static TaskMetadata task(TaskId id) {
		return (TaskMetadata) Proxy.newProxyInstance(LocalTasksTests.class.getClassLoader(),
				new Class<?>[] { TaskMetadata.class }, (proxy, method, args) -> switch (method.getName()) {
					case "taskId" -> id;
					case "hashCode" -> id.hashCode();
					case "equals" -> proxy == args[0];
					default -> throw new UnsupportedOperationException(method.getName());
				});
	}

}
