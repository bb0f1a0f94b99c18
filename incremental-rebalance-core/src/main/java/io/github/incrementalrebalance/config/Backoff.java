package io.github.incrementalrebalance.config;

import java.time.Duration;

/**
 * The pause before the next try of something that keeps failing: it doubles after each failure up to a cap, so that a
 * fault that lasts costs the cluster one request per cap, and starts from the first pause again for a new fault.
 * Immutable.
 *
 * @param first the pause after a first failure
 * @param cap the longest pause
 * @param pause the pause before the next try
 */
public record Backoff(Duration first, Duration cap, Duration pause) {

	public Backoff {
		if (first.isNegative() || first.isZero() || cap.compareTo(first) < 0) {
			throw new IllegalArgumentException("a back-off needs a positive first pause no longer than its cap, not "
					+ first + " and " + cap);
		}
	}

	/**
	 * @param first the pause after a first failure
	 * @param cap the longest pause
	 * @return a back-off at its first pause
	 */
	public static Backoff doubling(Duration first, Duration cap) {
		return new Backoff(first, cap, first);
	}

	/**
	 * @return the back-off after one more failure: twice the pause, at most the cap
	 */
	public Backoff next() {
		Duration doubled = this.pause.multipliedBy(2);
		return new Backoff(this.first, this.cap, (doubled.compareTo(this.cap) > 0) ? this.cap : doubled);
	}

	/**
	 * The pause after some failures in a row, for a caller that counts them rather than keep a back-off.
	 * @param failures failures in a row, at least 1
	 * @return the first pause doubled for each failure after the first, at most the cap
	 */
	public Duration pauseAfter(long failures) {
		Duration pause = this.first;
		for (long failure = 1; failure < failures && pause.compareTo(this.cap) < 0; failure++) {
			pause = pause.multipliedBy(2);
		}
		return (pause.compareTo(this.cap) > 0) ? this.cap : pause;
	}

	/**
	 * @param longest the new cap; a shorter one than this back-off's keeps it
	 * @return this back-off, doubling from its current pause up to the longer of the two caps
	 */
	public Backoff upTo(Duration longest) {
		return (longest.compareTo(this.cap) > 0) ? new Backoff(this.first, longest, this.pause) : this;
	}

	/**
	 * @return the back-off for a new fault: at its first pause
	 */
	public Backoff reset() {
		return doubling(this.first, this.cap);
	}

}
