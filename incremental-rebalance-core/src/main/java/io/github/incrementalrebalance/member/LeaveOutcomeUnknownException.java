package io.github.incrementalrebalance.member;

/**
 * A leave, or its cancel, whose record may or may not be on the control topic: the cluster did not answer in time, or
 * the producer gave up on a record it may have sent. It is not refused: it can still take effect, and the member's
 * state will show whether it did.
 */
public class LeaveOutcomeUnknownException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	public LeaveOutcomeUnknownException(String message, Throwable cause) {
		super(message, cause);
	}

}
