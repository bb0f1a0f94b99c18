package io.github.incrementalrebalance.testkit;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;

import io.github.incrementalrebalance.control.PlanRecord;
import io.github.incrementalrebalance.member.DrainOutcome;
import io.github.incrementalrebalance.member.MemberRuntime;
import io.github.incrementalrebalance.member.MemberState;
import io.github.incrementalrebalance.member.StoreTasks;
import io.github.incrementalrebalance.planner.MemberPlan;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KafkaStreams.State;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.TaskMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One running Kafka Streams instance of a test, with the history of its states and the records it restored.
 */
public final class StreamsInstance implements AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(StreamsInstance.class);

	private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

	private final String name;

	private final KafkaStreams streams;

	private final KafkaClientSupplier clientSupplier;

	private final RestoredRecords restoredRecords;

	private final List<StateChange> stateChanges = new CopyOnWriteArrayList<>();

	private final MemberRuntime runtime;

	private volatile boolean closed;

	private StreamsInstance(String name, KafkaStreams streams, KafkaClientSupplier clientSupplier,
			RestoredRecords restoredRecords, MemberRuntime runtime) {
		this.name = name;
		this.streams = streams;
		this.clientSupplier = clientSupplier;
		this.restoredRecords = restoredRecords;
		this.runtime = runtime;
	}

	/**
	 * What the current plan says of this member's start, as it reads the control topic.
	 * @return its plan, if the current plan has one
	 */
	public Optional<MemberPlan> plan() {
		MemberRuntime member = runtime();
		return member.controlView().plan(member.identity().instanceId(), member.identity().incarnation())
			.map(PlanRecord::plan);
	}

	/**
	 * The incremental-rebalance runtime of this instance.
	 * @return the runtime
	 * @throws IllegalStateException when the instance was started without one
	 */
	public MemberRuntime runtime() {
		if (this.runtime == null) {
			throw new IllegalStateException(this.name + " runs without a member runtime");
		}
		return this.runtime;
	}

	static StreamsInstance start(String name, Topology topology, Properties config, KafkaClientSupplier supplier,
			BiConsumer<KafkaStreams, Topology> onCreated, MemberRuntime runtime) {
		KafkaStreams streams = new KafkaStreams(topology, config, supplier);
		RestoredRecords restored = new RestoredRecords(StoreTasks.of(topology.describe()));
		StreamsInstance instance = new StreamsInstance(name, streams, supplier, restored, runtime);
		streams.setStateListener((to, from) -> instance.stateChanges.add(new StateChange(Instant.now(), from, to)));
		streams.setGlobalStateRestoreListener(restored);
		streams.setStandbyUpdateListener(restored);
		streams.setUncaughtExceptionHandler((ex) -> {
			logger.error("Stream thread of {} died", name, ex);
			return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
		});
		try {
			onCreated.accept(streams, topology);
		}
		catch (RuntimeException ex) {
			// refused before it started: nothing of it may outlive the test
			streams.close(Duration.ZERO);
			if (runtime != null) {
				runtime.close();
			}
			throw ex;
		}
		streams.start();
		return instance;
	}

	/**
	 * Whether every instance is {@code RUNNING}.
	 * @param instances the instances
	 * @return true when all are
	 */
	public static boolean allRunning(StreamsInstance... instances) {
		return Arrays.stream(instances).allMatch((instance) -> instance.state() == State.RUNNING);
	}

	/**
	 * Whether the learner plan has settled on every instance: no learners, nothing being learned, each running what
	 * its last plan says, and all {@code RUNNING}.
	 * @param instances the instances
	 * @return true when it has
	 */
	public static boolean planSettled(StreamsInstance... instances) {
		for (StreamsInstance instance : instances) {
			boolean quiet = instance.plan()
				.map((plan) -> plan.learning().isEmpty() && plan.beingLearned().isEmpty()
						&& plan.active().equals(instance.activeTasks()))
				.orElse(false);
			if (!quiet) {
				return false;
			}
		}
		return allRunning(instances);
	}

	/**
	 * The restore counts of several instances, for {@link RestoredRecords#assertRestoredAtPromotionAtMost}.
	 * @param instances the instances
	 * @return each one's counts, in order
	 */
	public static RestoredRecords[] restoredRecordsOf(StreamsInstance... instances) {
		return Arrays.stream(instances).map(StreamsInstance::restoredRecords).toArray(RestoredRecords[]::new);
	}

	/**
	 * The union of the instances' active tasks.
	 * @param instances the instances
	 * @return every task active on one of them
	 */
	public static Set<TaskId> activeTasksOf(StreamsInstance... instances) {
		return Arrays.stream(instances)
			.flatMap((instance) -> instance.activeTasks().stream())
			.collect(Collectors.toSet());
	}

	public String name() {
		return this.name;
	}

	public KafkaStreams kafkaStreams() {
		return this.streams;
	}

	/**
	 * The supplier the instance was started with, as the type the test gave it.
	 * @param <T> the supplier type
	 * @param type the expected type
	 * @return the supplier
	 */
	public <T extends KafkaClientSupplier> T clientSupplier(Class<T> type) {
		return type.cast(this.clientSupplier);
	}

	public RestoredRecords restoredRecords() {
		return this.restoredRecords;
	}

	public State state() {
		return this.streams.state();
	}

	/**
	 * How many times the instance went into {@code REBALANCING} at or after a moment.
	 * @param since the moment
	 * @return the count
	 */
	public long rebalancesSince(Instant since) {
		return this.stateChanges.stream()
			.filter((change) -> change.to() == State.REBALANCING && !change.at().isBefore(since))
			.count();
	}

	/**
	 * The instance's state transitions since a moment, oldest first.
	 * @param since the moment
	 * @return the transitions
	 */
	public List<StateChange> stateChangesSince(Instant since) {
		return this.stateChanges.stream().filter((change) -> !change.at().isBefore(since)).toList();
	}

	public StreamsInstance awaitRunning() {
		return awaitState(State.RUNNING, Duration.ofSeconds(60));
	}

	public StreamsInstance awaitState(State state, Duration timeout) {
		await(this.name + " " + state).atMost(timeout).until(() -> this.streams.state() == state);
		return this;
	}

	/**
	 * The tasks this instance runs now, as of its threads' last transition to RUNNING.
	 * @return active task ids
	 */
	public Set<TaskId> activeTasks() {
		return this.streams.metadataForLocalThreads().stream()
			.map(ThreadMetadata::activeTasks)
			.flatMap(Set::stream)
			.map(TaskMetadata::taskId)
			.collect(Collectors.toSet());
	}

	public Set<TaskId> standbyTasks() {
		return this.streams.metadataForLocalThreads().stream()
			.map(ThreadMetadata::standbyTasks)
			.flatMap(Set::stream)
			.map(TaskMetadata::taskId)
			.collect(Collectors.toSet());
	}

	/**
	 * Wait until this member's leave ended and Kafka Streams closed, and check that it drained through learners:
	 * nothing moved cold.
	 * @param within how long the drain may take
	 */
	public void awaitDrainedWarm(Duration within) {
		await(this.name + " drained").atMost(within).until(() -> runtime().state() == MemberState.CLOSED);
		assertThat(runtime().drainOutcome()).hasValueSatisfying((outcome) -> {
			assertThat(outcome.kind()).isEqualTo(DrainOutcome.Kind.DRAINED);
			assertThat(outcome.tasksMovedCold()).isZero();
		});
	}

	/**
	 * Close as Spring's factory bean does by default: a timeout, no leave-group option.
	 */
	@Override
	public void close() {
		close(new KafkaStreams.CloseOptions().timeout(CLOSE_TIMEOUT));
	}

	public void close(KafkaStreams.CloseOptions options) {
		if (this.closed) {
			return;
		}
		this.closed = true;
		this.streams.close(options);
		if (this.runtime != null) {
			this.runtime.close();
		}
	}

	/**
	 * One transition of the instance's state.
	 * @param at when
	 * @param from the old state
	 * @param to the new state
	 */
	public record StateChange(Instant at, State from, State to) {
	}

}
