package io.github.incrementalrebalance.cli;

/**
 * What the command line's exit status means, for scripts.
 */
final class ExitCodes {

	/** Done: every instance named was asked, or the list was printed. */
	static final int OK = 0;

	/**
	 * An instance named was skipped (unknown, not leaving, its id shared) or the leave was refused; {@code cancel}: an
	 * instance had left, or was handing over, when the cancel came.
	 */
	static final int REFUSED = 1;

	/** The command line is wrong (picocli's usage status). */
	static final int USAGE = 2;

	/** The cluster or the control topic could not be read or written, or the command config cannot be read. */
	static final int UNAVAILABLE = 3;

	/** {@code leave --wait}: a member left without handing every task to a ready learner (forced, without learners). */
	static final int NOT_DRAINED = 4;

	/**
	 * {@code leave --wait}: the wait passed before every member asked had left; {@code cancel}: before every member
	 * answered (the cancel stands: a member stays if it reads it before it hands over).
	 */
	static final int STILL_LEAVING = 5;

	private ExitCodes() {
	}

}
