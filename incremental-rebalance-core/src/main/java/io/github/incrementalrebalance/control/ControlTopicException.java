package io.github.incrementalrebalance.control;

/**
 * The control topic cannot be used; the message names the topic and the fix.
 */
public class ControlTopicException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	public ControlTopicException(String message) {
		super(message);
	}

	public ControlTopicException(String message, Throwable cause) {
		super(message, cause);
	}

}
