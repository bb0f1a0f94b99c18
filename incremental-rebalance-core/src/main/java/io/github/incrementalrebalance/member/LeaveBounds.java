package io.github.incrementalrebalance.member;

import java.time.Duration;
import java.util.Objects;

/**
 * How long a leave waits for the group to answer it, and what it does when the group does not: the answer is a plan
 * that acknowledges the leave, and after a rebalance that completed since the request, a plan of that generation at
 * all. A slow rebalance (a member stuck in a slow call, a large exactly-once group) takes as long as the group's
 * rebalance timeout, so that is the default wait; a leave without a deadline then keeps asking and says why, unless
 * the application chose to leave without learners. Once answered, a drain whose learners get nowhere says so after
 * its stall bound, and goes on.
 *
 * @param acknowledgement how long an unanswered leave waits before it is reported as waiting (or leaves, below)
 * @param leaveUnanswered true to leave the group without learners once {@code acknowledgement} passed unanswered;
 * false (the default) to keep asking until answered, cancelled or past the leave's own deadline
 * @param stall how long the learners of a drain may not come closer to ready before it is reported stalled
 * @param othersReturn how long a hand-over with no other member waits for members that were in the plan lately and
 * may be rejoining: the group's session timeout
 */
public record LeaveBounds(Duration acknowledgement, boolean leaveUnanswered, Duration stall, Duration othersReturn) {

	public LeaveBounds {
		Objects.requireNonNull(acknowledgement, "acknowledgement");
		Objects.requireNonNull(stall, "stall");
		Objects.requireNonNull(othersReturn, "othersReturn");
		if (acknowledgement.isNegative()) {
			throw new IllegalArgumentException("acknowledgement must not be negative: " + acknowledgement);
		}
		if (stall.isNegative() || stall.isZero()) {
			throw new IllegalArgumentException("stall must be positive: " + stall);
		}
	}

}
