package io.github.incrementalrebalance.control;

/**
 * A control topic record of a kind this version does not know, such as one a newer version writes: readers skip it,
 * and say so once per kind rather than once per record.
 */
public final class UnknownControlRecordKindException extends MalformedControlRecordException {

	private static final long serialVersionUID = 1L;

	private final String kind;

	UnknownControlRecordKindException(String kind, String message) {
		super(message);
		this.kind = kind;
	}

	/**
	 * The kind, the key up to its first {@code /} (the whole key when it has none).
	 * @return the kind
	 */
	public String kind() {
		return this.kind;
	}

}
