package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CloseOptions.GroupMembershipOperation;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class MemberClientSupplierTests {

	private final RecordingSupplier clients = new RecordingSupplier();

	private final MemberClientSupplier supplier = new MemberClientSupplier(this.clients);

	@Test
	void onClientsWithoutThePublicCloseOptionTheMainConsumerIsMadeWithTheInternalLeaveSetting() {
		MemberClientSupplier kafka41 = new MemberClientSupplier(this.clients, new LeaveOnClose(),
				new ClientCapabilities("4.1.2", false, false));
		Map<String, Object> config = Map.of(ConsumerConfig.GROUP_ID_CONFIG, "app");
		kafka41.getConsumer(config);
		assertThat(this.clients.consumerConfigs).singleElement()
			.satisfies((made) -> assertThat(made).containsEntry("internal.leave.group.on.close", true)
				.containsEntry(ConsumerConfig.GROUP_ID_CONFIG, "app"));
		assertThat(config).doesNotContainKey("internal.leave.group.on.close");
	}

	@Test
	void onClientsWithThePublicCloseOptionTheMainConsumerConfigIsLeftAlone() {
		MemberClientSupplier kafka42 = new MemberClientSupplier(this.clients, new LeaveOnClose(),
				new ClientCapabilities("4.2.1", true, false));
		Map<String, Object> config = Map.of(ConsumerConfig.GROUP_ID_CONFIG, "app");
		kafka42.getConsumer(config);
		assertThat(this.clients.consumerConfigs).singleElement().isEqualTo(config);
	}

	/**
	 * A leader's plan is published only if its consumer did not join the group again meanwhile, which the consumer's
	 * own count of its joins tells (Kafka's {@code join-total} metric): there on every client line, 0 before a join,
	 * and nothing outside a poll.
	 */
	@Test
	void theMainConsumerReportsHowOftenItJoinedTheGroup() {
		Map<String, Object> config = new HashMap<>(Map.of(ConsumerConfig.GROUP_ID_CONFIG, "app",
				ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9", ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
				ByteArrayDeserializer.class, ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class));
		Consumer<byte[], byte[]> consumer = new MemberClientSupplier(new PlainKafkaClients()).getConsumer(config);
		try {
			assertThat(consumer).isInstanceOf(MemberConsumer.class);
			assertThat(((MemberConsumer) consumer).joins()).hasValue(0);
			assertThat(MemberConsumer.joinsOfPollingThread()).as("outside a poll").isEmpty();
		}
		finally {
			consumer.close(CloseOptions.timeout(Duration.ZERO));
		}
	}

	/**
	 * The version detected is the one Kafka's clients report in their own metrics, and what is detected follows it:
	 * the public close option from 4.2, its DEFAULT operation from 4.4.
	 */
	@Test
	void capabilitiesDetectedMatchTheClientsOnTheClassPath() {
		ClientCapabilities detected = ClientCapabilities.detected();
		assertThat(detected.kafkaVersion()).isEqualTo(versionInClientMetrics());
		String[] parts = detected.kafkaVersion().split("\\.");
		int line = Integer.parseInt(parts[0]) * 100 + Integer.parseInt(parts[1]);
		boolean kafka42OrLater = line >= 402;
		boolean kafka44OrLater = line >= 404;
		assertThat(detected.publicCloseOptions()).isEqualTo(kafka42OrLater);
		assertThat(detected.defaultCloseOperation()).isEqualTo(kafka44OrLater);
		assertThat(detected.leavePath()).startsWith("Kafka clients " + detected.kafkaVersion() + ": ")
			.contains(kafka42OrLater ? "public close option" : "internal.leave.group.on.close=true");
		assertThat(detected.leavePath().contains("DEFAULT close (KIP-1284")).isEqualTo(kafka44OrLater);
	}

	@Test
	void eachLeavePathNamesWhatItDoes() {
		assertThat(new ClientCapabilities("4.1.2", false, false).leavePath())
			.isEqualTo("Kafka clients 4.1.2: members leave through internal.leave.group.on.close=true (no public "
					+ "close option before Kafka 4.2) and an explicit GroupMembershipOperation on close");
		assertThat(new ClientCapabilities("4.3.1", true, false).leavePath())
			.isEqualTo("Kafka clients 4.3.1: members leave through the public close option (GroupMembershipOperation, "
					+ "KIP-1153); Kafka Streams' default REMAIN_IN_GROUP is replaced by the member's leave-on-close "
					+ "policy");
		assertThat(new ClientCapabilities("4.4.0", true, true).leavePath())
			.isEqualTo("Kafka clients 4.4.0: members leave through the public close option (GroupMembershipOperation, "
					+ "KIP-1153); Kafka Streams' DEFAULT close (KIP-1284, a stay for a classic-protocol member) and its "
					+ "REMAIN_IN_GROUP are replaced by the member's leave-on-close policy");
	}

	private static String versionInClientMetrics() {
		Map<String, Object> config = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9");
		try (Producer<byte[], byte[]> producer = new PlainKafkaClients().getProducer(config)) {
			return producer.metrics().values().stream()
				.filter((metric) -> metric.metricName().group().equals("app-info")
						&& metric.metricName().name().equals("version"))
				.map((metric) -> String.valueOf(metric.metricValue()))
				.findFirst()
				.orElseThrow();
		}
	}

	@Test
	void dynamicMemberLeavesOnEveryCloseVariant() {
		assertThat(closeWith((consumer) -> consumer.close(), dynamic()).groupMembershipOperation())
			.isEqualTo(GroupMembershipOperation.LEAVE_GROUP);
		CloseOptions timed = closeWith((consumer) -> consumer.close(Duration.ofSeconds(7)), dynamic());
		assertThat(timed.groupMembershipOperation()).isEqualTo(GroupMembershipOperation.LEAVE_GROUP);
		assertThat(timed.timeout()).contains(Duration.ofSeconds(7));
		CloseOptions defaulted = closeWith((consumer) -> consumer.close(CloseOptions.timeout(Duration.ofSeconds(3))),
				dynamic());
		assertThat(defaulted.groupMembershipOperation()).isEqualTo(GroupMembershipOperation.LEAVE_GROUP);
		assertThat(defaulted.timeout()).contains(Duration.ofSeconds(3));
	}

	@Test
	void kafkaStreamsDefaultStayOfADynamicMemberIsReplacedByALeave() {
		CloseOptions closed = closeWith((consumer) -> consumer.close(CloseOptions
			.groupMembershipOperation(GroupMembershipOperation.REMAIN_IN_GROUP)
			.withTimeout(Duration.ofSeconds(4))), dynamic());
		assertThat(closed.groupMembershipOperation()).isEqualTo(GroupMembershipOperation.LEAVE_GROUP);
		assertThat(closed.timeout()).contains(Duration.ofSeconds(4));
	}

	@Test
	void explicitLeaveIsKeptEvenForAStaticMember() {
		CloseOptions closed = closeWith(
				(consumer) -> consumer.close(CloseOptions.groupMembershipOperation(GroupMembershipOperation.LEAVE_GROUP)),
				staticMember());
		assertThat(closed.groupMembershipOperation()).isEqualTo(GroupMembershipOperation.LEAVE_GROUP);
	}

	@Test
	void withLeaveOnCloseOffTheMemberClosesAsKafkaStreamsAsksUntilDrained() {
		MemberClientSupplier asAsked = new MemberClientSupplier(this.clients, new LeaveOnClose(false),
				ClientCapabilities.detected());
		asAsked.getConsumer(dynamic())
			.close(CloseOptions.groupMembershipOperation(GroupMembershipOperation.REMAIN_IN_GROUP));
		asAsked.getConsumer(dynamic()).close();
		asAsked.getConsumer(dynamic())
			.close(CloseOptions.groupMembershipOperation(GroupMembershipOperation.LEAVE_GROUP));
		asAsked.leaveOnClose().markDrained();
		asAsked.getConsumer(dynamic())
			.close(CloseOptions.groupMembershipOperation(GroupMembershipOperation.REMAIN_IN_GROUP));
		assertThat(this.clients.closes).extracting(CloseOptions::groupMembershipOperation)
			.containsExactly(GroupMembershipOperation.REMAIN_IN_GROUP, GroupMembershipOperation.REMAIN_IN_GROUP,
					GroupMembershipOperation.LEAVE_GROUP, GroupMembershipOperation.LEAVE_GROUP);
	}

	@Test
	void staticMemberStaysUntilDrainedThenLeaves() {
		assertThat(closeWith(Consumer::close, staticMember()).groupMembershipOperation())
			.isEqualTo(GroupMembershipOperation.REMAIN_IN_GROUP);
		this.supplier.leaveOnClose().markDrained();
		assertThat(closeWith(Consumer::close, staticMember()).groupMembershipOperation())
			.isEqualTo(GroupMembershipOperation.LEAVE_GROUP);
	}

	/**
	 * Each stream thread's main consumer is a member of the group, and a round completes only once all have joined
	 * it: a request is taken by one and joined by every one, each on its own thread, not at its next heartbeat.
	 */
	@Test
	void requestsBeforeAPollCoalesceIntoOneRoundThatEveryMainConsumerOfTheInstanceJoins() {
		Consumer<byte[], byte[]> first = subscribedConsumer();
		Consumer<byte[], byte[]> second = subscribedConsumer();
		completeGeneration(0, 3);
		completeGeneration(1, 3);
		RebalanceTrigger trigger = this.supplier.rebalanceTrigger();
		List<String> announced = new ArrayList<>();
		trigger.addEnforcementListener(announced::add);
		trigger.request("learner ready");
		trigger.request("learner ready again");
		assertThat(trigger.isPending()).isTrue();

		first.poll(Duration.ZERO);
		second.poll(Duration.ZERO);

		assertThat(this.clients.consumers.get(0).shouldRebalance()).isTrue();
		assertThat(this.clients.consumers.get(1).shouldRebalance()).as("the instance's other consumer").isTrue();
		assertThat(trigger.requestedCount()).isEqualTo(2);
		assertThat(trigger.enforcedCount()).isEqualTo(1);
		assertThat(trigger.rounds(RebalanceCause.APPLICATION)).as("once per instance").isEqualTo(1);
		assertThat(announced).as("once per instance").hasSize(1);
		assertThat(trigger.isPending()).isFalse();

		this.clients.consumers.get(1).resetShouldRebalance();
		second.poll(Duration.ZERO);
		assertThat(this.clients.consumers.get(1).shouldRebalance()).as("a round is joined once").isFalse();
	}

	/**
	 * A consumer whose SyncGroup answer is still to be handled would have a rejoin asked now undone when it completes
	 * that generation; it joins once it has completed it, within the same poll, and one that completed a later
	 * generation was in the round and lets it pass.
	 */
	@Test
	void aConsumerJoinsTheInstancesRoundOnlyOnceItCompletedTheGenerationTheRoundBeganAfter() {
		Consumer<byte[], byte[]> first = subscribedConsumer();
		Consumer<byte[], byte[]> second = subscribedConsumer();
		Consumer<byte[], byte[]> third = subscribedConsumer();
		completeGeneration(0, 4);
		completeGeneration(1, 3);
		RebalanceTrigger trigger = this.supplier.rebalanceTrigger();
		trigger.follow("c is leaving (a rejoins as c asked)", 4);
		first.poll(Duration.ZERO);
		assertThat(this.clients.consumers.get(0).shouldRebalance()).isTrue();

		second.poll(Duration.ZERO);
		assertThat(this.clients.consumers.get(1).shouldRebalance()).as("still completing generation 3").isFalse();
		completeGeneration(1, 4);
		assertThat(this.clients.consumers.get(1).shouldRebalance()).as("joined once generation 4 completed").isTrue();

		completeGeneration(2, 5);
		third.poll(Duration.ZERO);
		assertThat(this.clients.consumers.get(2).shouldRebalance()).as("it was in the round").isFalse();
		assertThat(trigger.rounds(RebalanceCause.FOLLOW)).isEqualTo(1);
	}

	/**
	 * The rounds a member joins by itself, which the others would join at their next heartbeat: its first join, once
	 * its JoinGroup had time to reach the coordinator, the round after a rebalance that revoked some of its partitions
	 * (not a close), a follow-up rebalance Kafka Streams enforces, and the round its leave of the group begins.
	 */
	@Test
	void roundsTheConsumerJoinsByItselfAreAnnounced() {
		RebalanceTrigger trigger = this.supplier.rebalanceTrigger();
		List<String> announced = new ArrayList<>();
		trigger.addEnforcementListener(announced::add);
		Consumer<byte[], byte[]> consumer = subscribedConsumer();
		ConsumerRebalanceListener reporter = this.clients.listeners.get(0);

		consumer.poll(Duration.ZERO);
		consumer.poll(Duration.ZERO);
		assertThat(announced).as("before its JoinGroup reached the coordinator").isEmpty();
		await("the join announced").atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			consumer.poll(Duration.ZERO);
			assertThat(announced).containsExactly("incremental-rebalance: a new member joins the group");
		});
		consumer.poll(Duration.ZERO);
		assertThat(announced).as("once").hasSize(1);

		reporter.onPartitionsRevoked(List.of(new TopicPartition("input", 0), new TopicPartition("input", 3)));
		completeGeneration(0, 1);
		assertThat(announced).last().asString().contains("2 partition(s) revoked in generation 1");
		completeGeneration(0, 1);
		assertThat(announced).as("a round that revoked nothing").hasSize(2);

		consumer.enforceRebalance("triggered followup rebalance scheduled for 0");
		assertThat(announced).as("part of the round the revoke began").hasSize(2);
		completeGeneration(0, 2);
		consumer.enforceRebalance("triggered followup rebalance scheduled for 0");
		assertThat(announced).as("a follow-up Kafka Streams scheduled").hasSize(3).last().asString()
			.contains("Kafka Streams rejoins (triggered followup rebalance scheduled for 0)");
		assertThat(this.clients.consumers.get(0).shouldRebalance()).isTrue();
		assertThat(trigger.rounds(RebalanceCause.JOIN)).isEqualTo(3);

		completeGeneration(0, 3);
		consumer.close();
		assertThat(announced).as("its LeaveGroup begins a round").hasSize(4).last().asString()
			.contains("a member leaves the group");
		reporter.onPartitionsRevoked(List.of(new TopicPartition("input", 1)));
		completeGeneration(0, 4);
		assertThat(announced).as("partitions given up by a close go nowhere next round").hasSize(4);
		assertThat(trigger.observedGeneration()).isEqualTo(4);
	}

	/**
	 * A stream thread added to a running instance joins the group as a new member, which the instance's other
	 * consumers and the other members would otherwise join at their next heartbeat.
	 */
	@Test
	void aStreamThreadAddedToARunningInstanceAnnouncesItsJoinAndTheOthersJoinIt() {
		Consumer<byte[], byte[]> running = subscribedConsumer();
		completeGeneration(0, 6);
		RebalanceTrigger trigger = this.supplier.rebalanceTrigger();
		List<String> announced = new ArrayList<>();
		trigger.addEnforcementListener(announced::add);
		Consumer<byte[], byte[]> added = subscribedConsumer();

		await("the added thread's join announced").atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			added.poll(Duration.ZERO);
			assertThat(announced).containsExactly("incremental-rebalance: a new member joins the group");
		});
		running.poll(Duration.ZERO);
		assertThat(this.clients.consumers.get(0).shouldRebalance()).as("the running thread joins at once").isTrue();
	}

	/**
	 * A drained instance leaves the group: a round its consumers joined before they close would keep its tasks
	 * assigned to it for one more round, which under the cooperative protocol then takes another to hand them over.
	 */
	@Test
	void aDrainedInstancesConsumersJoinNoRound() {
		Consumer<byte[], byte[]> first = subscribedConsumer();
		Consumer<byte[], byte[]> second = subscribedConsumer();
		completeGeneration(0, 7);
		completeGeneration(1, 7);
		RebalanceTrigger trigger = this.supplier.rebalanceTrigger();
		this.supplier.leaveOnClose().markDrained();

		trigger.follow("learners ready [0_1] (b rejoins as a asked)", 7);
		trigger.joiningByItself("incremental-rebalance: b leaves the group");
		first.poll(Duration.ZERO);
		second.poll(Duration.ZERO);

		assertThat(this.clients.consumers).noneMatch(MockConsumer::shouldRebalance);
	}

	/**
	 * A static member the group still holds gets its tasks back without a round, however long its join takes; one the
	 * group does not hold (new, or expired) starts a round, announced like any new member's.
	 */
	@Test
	void aStaticMemberTheGroupStillHoldsDoesNotAnnounceItsJoin() {
		AtomicBoolean known = new AtomicBoolean(true);
		this.supplier.staticMemberKnownWhen(known::get);
		RebalanceTrigger trigger = this.supplier.rebalanceTrigger();
		List<String> announced = new ArrayList<>();
		trigger.addEnforcementListener(announced::add);
		Consumer<byte[], byte[]> restarted = this.supplier.getConsumer(staticMember());

		await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(2)).untilAsserted(() -> {
			restarted.poll(Duration.ZERO);
			assertThat(announced).isEmpty();
		});

		known.set(false);
		Consumer<byte[], byte[]> added = this.supplier.getConsumer(staticMember());
		await("a static member the group does not hold").atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			added.poll(Duration.ZERO);
			assertThat(announced).containsExactly("incremental-rebalance: a new member joins the group");
		});
	}

	@Test
	void otherClientsComeFromTheDelegateUnchanged() {
		Map<String, Object> config = Map.of("k", "v");
		assertThat(this.supplier.getRestoreConsumer(config)).isSameAs(this.clients.consumers.get(0));
		assertThat(this.supplier.getGlobalConsumer(config)).isSameAs(this.clients.consumers.get(1));
		assertThat(this.clients.consumerConfigs).containsOnly(config);
	}

	private CloseOptions closeWith(java.util.function.Consumer<Consumer<byte[], byte[]>> close,
			Map<String, Object> config) {
		Consumer<byte[], byte[]> consumer = this.supplier.getConsumer(config);
		close.accept(consumer);
		return this.clients.closes.get(this.clients.closes.size() - 1);
	}

	private Consumer<byte[], byte[]> subscribedConsumer() {
		Consumer<byte[], byte[]> consumer = this.supplier.getConsumer(dynamic());
		consumer.subscribe(List.of("input"), new ConsumerRebalanceListener() {

			@Override
			public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
			}

			@Override
			public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
			}

		});
		return consumer;
	}

	/**
	 * A main consumer completes a generation: its group metadata has it when its rebalance listener is told.
	 */
	private void completeGeneration(int consumer, int generation) {
		this.clients.consumers.get(consumer).generation = generation;
		this.clients.listeners.get(consumer).onPartitionsAssigned(List.of());
	}

	private static Map<String, Object> dynamic() {
		return Map.of(ConsumerConfig.GROUP_ID_CONFIG, "app");
	}

	private static Map<String, Object> staticMember() {
		return Map.of(ConsumerConfig.GROUP_ID_CONFIG, "app", ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "pod-1-1");
	}

	/**
	 * Makes Kafka's {@link MockConsumer}s and records what the member supplier asks of them.
	 */
	private static final class RecordingSupplier implements KafkaClientSupplier {

		final List<Map<String, Object>> consumerConfigs = new ArrayList<>();

		final List<GroupConsumer> consumers = new ArrayList<>();

		final List<CloseOptions> closes = new ArrayList<>();

		final List<ConsumerRebalanceListener> listeners = new ArrayList<>();

		@Override
		public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
			throw new UnsupportedOperationException();
		}

		@Override
		public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
			return make(config);
		}

		@Override
		public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
			return make(config);
		}

		@Override
		public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
			return make(config);
		}

		private Consumer<byte[], byte[]> make(Map<String, Object> config) {
			this.consumerConfigs.add(new HashMap<>(config));
			GroupConsumer consumer = new GroupConsumer(this);
			this.consumers.add(consumer);
			return consumer;
		}

	}

	/**
	 * Kafka's {@link MockConsumer} with a generation of the group that the test sets.
	 */
	private static final class GroupConsumer extends MockConsumer<byte[], byte[]> {

		private final RecordingSupplier supplier;

		int generation = 1;

		GroupConsumer(RecordingSupplier supplier) {
			super("earliest");
			this.supplier = supplier;
		}

		@Override
		public synchronized ConsumerGroupMetadata groupMetadata() {
			return new ConsumerGroupMetadata("app", this.generation, "member", Optional.empty());
		}

		@Override
		public void close(CloseOptions options) {
			this.supplier.closes.add(options);
			super.close(options);
		}

		@Override
		public void subscribe(Collection<String> topics, ConsumerRebalanceListener listener) {
			this.supplier.listeners.add(listener);
			super.subscribe(topics, listener);
		}

	}

}
