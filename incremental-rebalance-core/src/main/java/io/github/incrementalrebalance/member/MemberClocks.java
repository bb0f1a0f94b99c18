package io.github.incrementalrebalance.member;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The member's two times. Every duration it keeps (a leave's timeout, how long it waits for an answer, a stall, the
 * spacing of its rebalances and samples) runs on {@code elapsed}, the JVM's monotonic clock, so that a step of the
 * wall clock (NTP, a paused VM resumed) neither forces a leave early nor holds it. The wall clock only stamps what
 * people and other machines read: records on the control topic, the deadline shown to an operator. Immutable; any
 * thread.
 *
 * @param wall the wall clock
 * @param elapsed a clock that only moves forward, at the rate of elapsed time
 */
record MemberClocks(Clock wall, Clock elapsed) {

	/**
	 * The system's clocks.
	 * @return the wall clock, and the monotonic clock anchored at its reading now
	 */
	static MemberClocks system() {
		return new MemberClocks(Clock.systemUTC(), new Monotonic(Clock.systemUTC().instant(), System.nanoTime()));
	}

	/**
	 * A point on the elapsed clock, as the wall clock reads it now.
	 * @param onElapsed an instant of the elapsed clock
	 * @return the wall clock's instant as far from now
	 */
	Instant onWall(Instant onElapsed) {
		return this.wall.instant().plus(Duration.between(this.elapsed.instant(), onElapsed));
	}

	/**
	 * {@link System#nanoTime()} as a {@link Clock}: instants counted from an anchor, so {@code Instant} arithmetic
	 * works, yet only elapsed time moves them.
	 */
	private static final class Monotonic extends Clock {

		private final Instant anchor;

		private final long anchorNanos;

		Monotonic(Instant anchor, long anchorNanos) {
			this.anchor = anchor;
			this.anchorNanos = anchorNanos;
		}

		@Override
		public Instant instant() {
			return this.anchor.plusNanos(System.nanoTime() - this.anchorNanos);
		}

		@Override
		public ZoneId getZone() {
			return ZoneOffset.UTC;
		}

		@Override
		public Clock withZone(ZoneId zone) {
			throw new UnsupportedOperationException("elapsed time has no zone");
		}

	}

}
