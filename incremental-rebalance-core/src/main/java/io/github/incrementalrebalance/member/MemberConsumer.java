package io.github.incrementalrebalance.member;

import java.time.Duration;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CloseOptions.GroupMembershipOperation;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The main consumer of one stream thread: takes rebalance requests inside its own {@code poll()} and closes with an
 * explicit group membership operation.
 */
final class MemberConsumer extends ForwardingConsumer<byte[], byte[]> {

	private static final Logger logger = LoggerFactory.getLogger(MemberConsumer.class);

	private final RebalanceTrigger trigger;

	private final LeaveOnClose leaveOnClose;

	private final boolean staticMember;

	MemberConsumer(Consumer<byte[], byte[]> delegate, RebalanceTrigger trigger, LeaveOnClose leaveOnClose,
			boolean staticMember) {
		super(delegate);
		this.trigger = trigger;
		this.leaveOnClose = leaveOnClose;
		this.staticMember = staticMember;
	}

	@Override
	public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
		String reason = this.trigger.take();
		if (reason != null) {
			logger.info("Enforcing a rebalance: {}", reason);
			delegate().enforceRebalance(reason);
			this.trigger.enforced();
		}
		ConsumerRecords<byte[], byte[]> records = delegate().poll(timeout);
		this.trigger.observeGeneration(delegate().groupMetadata().generationId());
		return records;
	}

	@Override
	public void close() {
		delegate().close(CloseOptions.groupMembershipOperation(membershipOperation(GroupMembershipOperation.DEFAULT)));
	}

	@Override
	public void close(Duration timeout) {
		delegate().close(CloseOptions.timeout(timeout)
			.withGroupMembershipOperation(membershipOperation(GroupMembershipOperation.DEFAULT)));
	}

	@Override
	public void close(CloseOptions options) {
		CloseOptions decided = CloseOptions
			.groupMembershipOperation(membershipOperation(options.groupMembershipOperation()));
		options.timeout().ifPresent(decided::withTimeout);
		delegate().close(decided);
	}

	private GroupMembershipOperation membershipOperation(GroupMembershipOperation requested) {
		GroupMembershipOperation operation = this.leaveOnClose.operation(this.staticMember, requested);
		logger.debug("Closing main consumer with {} (asked: {})", operation, requested);
		return operation;
	}

}
