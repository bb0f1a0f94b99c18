package io.github.incrementalrebalance.member;

import java.util.HashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;

import io.github.incrementalrebalance.config.LearnerConfig;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.KafkaClientSupplier;

/**
 * The {@link KafkaClientSupplier} of one Kafka Streams instance: wraps each main consumer so that
 * <ul>
 * <li>a {@link #rebalanceTrigger() rebalance requested} from any thread runs as {@code enforceRebalance} inside the
 * consumer's own {@code poll()};</li>
 * <li>every close states whether the member leaves the group or stays ({@link LeaveOnClose}), instead of the silent
 * stay that Kafka Streams forces on its consumers.</li>
 * </ul>
 * It composes with the application's own supplier: every client is still made by the delegate.
 * <p>
 * Up to Kafka 4.1 the classic coordinator sends a LeaveGroup only when the consumer-wide setting
 * {@code internal.leave.group.on.close} is true, and Kafka Streams sets it to false; on those clients this supplier
 * sets it back to true ({@link ClientCapabilities}). The setting is consumer-wide, so two other paths then also leave
 * the group: {@code unsubscribe()} (Kafka Streams calls it when a thread was fenced, before it rejoins) and an expired
 * {@code max.poll.interval.ms}. Both then free the member's tasks at once instead of after {@code session.timeout.ms},
 * which is what a dynamic member of Kafka 4.2 and later does by default. Use one supplier per {@code KafkaStreams}
 * instance.
 */
public final class MemberClientSupplier extends ForwardingClientSupplier {

	static final String LEAVE_GROUP_ON_CLOSE_CONFIG = "internal.leave.group.on.close";

	private final RebalanceTrigger rebalanceTrigger = new RebalanceTrigger();

	private final GroupMembership membership = new GroupMembership();

	private final LeaveOnClose leaveOnClose;

	private final ClientCapabilities capabilities;

	private volatile BooleanSupplier staticMemberKnown = () -> false;

	/**
	 * A supplier whose clients are Kafka's defaults.
	 */
	public MemberClientSupplier() {
		this(new PlainKafkaClients());
	}

	/**
	 * A supplier whose clients are made by another one, whose dynamic members leave on every close.
	 * @param delegate the application's own supplier
	 */
	public MemberClientSupplier(KafkaClientSupplier delegate) {
		this(delegate, new LeaveOnClose(), ClientCapabilities.detected());
	}

	/**
	 * A supplier whose clients are made by another one.
	 * @param delegate the application's own supplier
	 * @param leaveOnClose how its main consumers close
	 * @param capabilities what the Kafka clients offer for a leave
	 */
	public MemberClientSupplier(KafkaClientSupplier delegate, LeaveOnClose leaveOnClose,
			ClientCapabilities capabilities) {
		super(delegate);
		this.leaveOnClose = leaveOnClose;
		this.capabilities = capabilities;
	}

	/**
	 * Where any thread asks this instance to rebalance its group.
	 * @return the trigger shared by every stream thread of the instance
	 */
	public RebalanceTrigger rebalanceTrigger() {
		return this.rebalanceTrigger;
	}

	/**
	 * How the instance's main consumers close.
	 * @return the leave-or-stay decision shared by every stream thread of the instance
	 */
	public LeaveOnClose leaveOnClose() {
		return this.leaveOnClose;
	}

	/**
	 * The instance's group membership, which tells when its last main consumer left.
	 * @return the membership shared by every stream thread of the instance
	 */
	GroupMembership groupMembership() {
		return this.membership;
	}

	/**
	 * Tell whether the group still holds this instance as a static member, whose first join is then a restart in its
	 * place that starts no round and is not announced.
	 * @param known true while the group holds the instance
	 */
	void staticMemberKnownWhen(BooleanSupplier known) {
		this.staticMemberKnown = known;
	}

	@Override
	public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
		Map<String, Object> consumerConfig = config;
		if (this.capabilities.needsInternalLeaveSetting()) {
			consumerConfig = new HashMap<>(config);
			consumerConfig.put(LEAVE_GROUP_ON_CLOSE_CONFIG, true);
		}
		boolean staticMember = config.get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG) != null;
		this.rebalanceTrigger.spaceOwnRounds(LearnerConfig.heartbeatInterval(config));
		return new MemberConsumer(delegate().getConsumer(consumerConfig), this.rebalanceTrigger, this.leaveOnClose,
				staticMember ? this.staticMemberKnown : null, this.membership);
	}

}
