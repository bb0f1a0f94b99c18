package io.github.incrementalrebalance.member;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.testkit.CountingTopology;
import io.github.incrementalrebalance.testkit.GapMeter;
import io.github.incrementalrebalance.testkit.KafkaBroker;
import io.github.incrementalrebalance.testkit.TestTags;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A runtime under which Kafka Streams are stopped and started again, three times, while other threads ask it what an
 * endpoint asks (its tasks, its state) and what an operator asks (a leave, refused since no other member would stay,
 * and a cancel): no caller meets an exception other than a refusal, nothing of an earlier start runs beside the next
 * one (its check threads, named for its incarnation, are gone), and the runtime answers with the new start's parts.
 */
@Tag(TestTags.BROKER)
class MemberRestartConcurrencyTests {

	private static final String CHECK_THREADS = "incremental-rebalance-member-restarting-";

	private static final String READER_THREAD = "incremental-rebalance-control-reader-"
			+ LearnerConfig.defaultControlTopic("restart-concurrency");

	@RegisterExtension
	static final KafkaBroker broker = KafkaBroker.shared();

	@TempDir
	Path stateDir;

	@Test
	void startsAgainWhileOtherThreadsAskForTasksLeaveAndCancel() throws InterruptedException {
		String applicationId = "restart-concurrency";
		String input = applicationId + "-input";
		broker.createTopics(2, input, applicationId + "-output");
		Properties properties = new Properties();
		properties.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
		properties.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
		properties.put(StreamsConfig.STATE_DIR_CONFIG, this.stateDir.toString());
		properties.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
		properties.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
		properties.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 500);
		properties.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 6000);
		properties.put(LearnerConfig.INSTANCE_ID_CONFIG, "restarting");
		Topology topology = CountingTopology.build(input, applicationId + "-output", "restarting", new GapMeter());
		ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
		AtomicInteger refusals = new AtomicInteger();
		AtomicInteger answers = new AtomicInteger();
		AtomicBoolean asking = new AtomicBoolean(true);
		try (MemberRuntime runtime = MemberRuntime.create(properties)) {
			List<Thread> callers = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				int role = i;
				Thread caller = new Thread(() -> {
					while (asking.get()) {
						try {
							switch (role) {
								case 0 -> {
									runtime.tasks();
									runtime.state();
									runtime.learnerProgress();
									runtime.drainOutcome();
								}
								case 1 -> runtime.leave(Optional.empty(), "test");
								default -> runtime.cancel();
							}
							answers.incrementAndGet();
						}
						catch (LeaveRefusedException refused) {
							refusals.incrementAndGet();
						}
						catch (RuntimeException ex) {
							unexpected.add(ex);
						}
					}
				}, "caller-" + i);
				callers.add(caller);
			}
			KafkaStreams previous = null;
			String previousIncarnation = null;
			for (int start = 0; start < 3; start++) {
				KafkaStreams streams = new KafkaStreams(topology, runtime.configure(properties),
						runtime.clientSupplier(new PlainKafkaClients()));
				runtime.attach(streams, topology.describe()).start();
				streams.start();
				await("start " + start + " running with a plan naming it").atMost(Duration.ofMinutes(1))
					.until(() -> streams.state() == KafkaStreams.State.RUNNING
							&& runtime.controlView().plan("restarting", runtime.identity().incarnation()).isPresent());
				if (start == 0) {
					callers.forEach(Thread::start);
				}
				String incarnation = runtime.identity().incarnation();
				assertThat(runtime.isAttachedTo(streams)).isTrue();
				assertThat(previous == null || !runtime.isAttachedTo(previous)).isTrue();
				assertThat(incarnation).as("a new start is a new incarnation").isNotEqualTo(previousIncarnation);
				assertThat(checkThreads()).as("the checks of this start only")
					.isNotEmpty()
					.allSatisfy((name) -> assertThat(name).endsWith("-" + incarnation));
				await("the tasks of this start").atMost(Duration.ofSeconds(30))
					.until(() -> runtime.tasks().size() == 2);
				int answered = answers.get();
				await("the callers are answered by this start").atMost(Duration.ofSeconds(10))
					.until(() -> answers.get() > answered + 10);

				streams.close(Duration.ofSeconds(30));
				runtime.stop();
				// an executor terminates once its workers finished their last task, a moment before their threads end
				await("nothing of start " + start + " runs once it stopped").atMost(Duration.ofSeconds(2))
					.until(() -> checkThreads().isEmpty() && threadsNamed(READER_THREAD).isEmpty());
				previous = streams;
				previousIncarnation = incarnation;
			}
			asking.set(false);
			for (Thread caller : callers) {
				caller.join(Duration.ofSeconds(30).toMillis());
			}
		}
		assertThat(unexpected).as("exceptions met by the callers").isEmpty();
		assertThat(refusals.get()).as("leaves refused: no other member would stay").isPositive();
	}

	private static Set<String> checkThreads() {
		return threadsNamed(CHECK_THREADS);
	}

	private static Set<String> threadsNamed(String prefix) {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter(Thread::isAlive)
			.map(Thread::getName)
			.filter((name) -> name.startsWith(prefix))
			.collect(Collectors.toSet());
	}

}
