package io.github.incrementalrebalance.member;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.control.PlanPublisher;
import io.github.incrementalrebalance.identity.MemberIdentity;
import org.apache.kafka.streams.GroupProtocol;
import org.apache.kafka.streams.KafkaClientSupplier;

/**
 * What one start of Kafka Streams is built with before it exists: the member's identity for that start (a new
 * incarnation), the publisher its stream threads hand their plans to when they lead, and the client supplier that
 * wraps its clients. Made when the runtime configures a Kafka Streams config; the application's thread builds it,
 * stream threads then read it.
 */
final class StartWiring {

	private final MemberIdentity identity;

	private final PlanPublisher publisher;

	private volatile MemberClientSupplier clients;

	/** The group protocol this start's config selects: it decides what its drain waits for. */
	private volatile GroupProtocol protocol = GroupProtocol.CLASSIC;

	StartWiring(MemberIdentity identity, PlanPublisher publisher) {
		this.identity = identity;
		this.publisher = publisher;
	}

	MemberIdentity identity() {
		return this.identity;
	}

	PlanPublisher publisher() {
		return this.publisher;
	}

	GroupProtocol protocol() {
		return this.protocol;
	}

	void protocol(GroupProtocol selected) {
		this.protocol = selected;
	}

	/**
	 * The client supplier of this start, made on the first call (a Kafka Streams instance is built with one): its
	 * main consumers' completed generations publish this start's plans, and the rebalances they start are announced
	 * to the other members when {@code incremental.rebalance.rejoin.requests} is on.
	 * @param application the application's own supplier, which still makes every client
	 * @param config the learner settings
	 * @param rejoin announces this start's rebalances
	 * @return this start's supplier
	 */
	synchronized MemberClientSupplier clients(KafkaClientSupplier application, LearnerConfig config,
			RejoinCoordination rejoin) {
		if (this.clients == null) {
			MemberClientSupplier made = new MemberClientSupplier(application, new LeaveOnClose(config.leaveOnClose()),
					ClientCapabilities.detected());
			RebalanceTrigger trigger = made.rebalanceTrigger();
			trigger.addGenerationListener(this.publisher::generationCompleted);
			if (config.rejoinRequests()) {
				trigger.addEnforcementListener((reason) -> rejoin.askOthers(this.identity, trigger, reason));
			}
			made.staticMemberKnownWhen(() -> rejoin.inCurrentPlan(this.identity));
			this.clients = made;
		}
		return this.clients;
	}

	/**
	 * The client supplier, once {@link #clients(KafkaClientSupplier, LearnerConfig, RejoinCoordination)} made it.
	 * @return the supplier, or null before
	 */
	MemberClientSupplier clientsOrNull() {
		return this.clients;
	}

}
