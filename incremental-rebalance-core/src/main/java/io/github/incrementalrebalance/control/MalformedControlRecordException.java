package io.github.incrementalrebalance.control;

/**
 * A control topic record this version cannot read. Readers skip it with a WARN: one bad record must never stop an
 * instance.
 */
public class MalformedControlRecordException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	public MalformedControlRecordException(String message) {
		super(message);
	}

}
