package io.github.incrementalrebalance.control;

/**
 * A control record that was not written, or whose fate is not known. A write whose outcome is unknown (no answer in
 * time, or the producer gave up on a batch it may have sent) can still land: whoever asked must be told so, never that
 * it was refused.
 */
public final class ControlWriteException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final boolean outcomeUnknown;

	ControlWriteException(String message, boolean outcomeUnknown, Throwable cause) {
		super(message, cause);
		this.outcomeUnknown = outcomeUnknown;
	}

	/**
	 * Whether the record may still be written.
	 * @return true when the outcome is unknown, false when the write failed for sure
	 */
	public boolean outcomeUnknown() {
		return this.outcomeUnknown;
	}

}
