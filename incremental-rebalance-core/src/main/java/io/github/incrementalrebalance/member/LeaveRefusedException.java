package io.github.incrementalrebalance.member;

/**
 * A leave that cannot be started; {@link #reason()} tells why, the message how to fix it.
 */
public class LeaveRefusedException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final Reason reason;

	public LeaveRefusedException(Reason reason, String message, Throwable cause) {
		super(message, cause);
		this.reason = reason;
	}

	public Reason reason() {
		return this.reason;
	}

	/**
	 * Why a leave was refused.
	 */
	public enum Reason {

		/** Kafka Streams is neither running nor rebalancing. */
		NOT_RUNNING,

		/** Another live member has the same instance id. */
		DUPLICATE_INSTANCE_ID,

		/** The control topic cannot be written. */
		CONTROL_TOPIC_UNAVAILABLE,

		/** No other member of the group would stay: its tasks would have nowhere to go (ask again with force). */
		LAST_STABLE_MEMBER,

		/** No member of the last plan has the instance id asked. */
		UNKNOWN_INSTANCE

	}

}
