package io.github.incrementalrebalance.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock that moves only when a test moves it, or that follows another clock and that a test can step, as NTP steps
 * a wall clock.
 */
public final class MutableClock extends Clock {

	private final Clock base;

	private volatile Duration offset = Duration.ZERO;

	public MutableClock(Instant start) {
		this(Clock.fixed(start, ZoneOffset.UTC));
	}

	private MutableClock(Clock base) {
		this.base = base;
	}

	/**
	 * @param base the clock to follow
	 * @return a clock at {@code base}'s time plus what the test advanced it by
	 */
	public static MutableClock following(Clock base) {
		return new MutableClock(base);
	}

	/**
	 * @param duration how far to move the clock, backwards when negative
	 */
	public void advance(Duration duration) {
		this.offset = this.offset.plus(duration);
	}

	@Override
	public ZoneId getZone() {
		return ZoneOffset.UTC;
	}

	@Override
	public Clock withZone(ZoneId zone) {
		return this;
	}

	@Override
	public Instant instant() {
		return this.base.instant().plus(this.offset);
	}

}
