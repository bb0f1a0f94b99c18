package io.github.incrementalrebalance.control;

import java.time.Instant;
import java.util.Objects;

/**
 * {@code rejoin/<instance-id>}: a member started a rebalance for a hand-over (it leaves, its learners are ready, it
 * stays after all) or joins one by itself (it is new; a rebalance revoked some of its partitions, which their new
 * owners take in the next round) and asks the others to rejoin now rather than at their next heartbeat. Until every
 * member has rejoined, the members that did wait in the rebalance, and under exactly-once nobody's output is committed:
 * the heartbeat interval (3 s by default) would otherwise be paid once per round.
 *
 * @param instanceId the member that started the rebalance
 * @param incarnation its start
 * @param generation the last group generation it had completed (a new member: the last one planned): a member that
 * completed a later one has rejoined since, and ignores the request
 * @param reason why, as the member gave it to the group coordinator
 * @param at when, on its clock: shown, never compared
 */
public record RejoinRequest(String instanceId, String incarnation, int generation, String reason, Instant at)
		implements ControlRecord {

	static final String KEY_PREFIX = "rejoin/";

	public RejoinRequest {
		Objects.requireNonNull(instanceId, "instanceId");
		Objects.requireNonNull(incarnation, "incarnation");
		Objects.requireNonNull(reason, "reason");
		Objects.requireNonNull(at, "at");
	}

	public static String keyOf(String instanceId) {
		return KEY_PREFIX + instanceId;
	}

	@Override
	public String key() {
		return keyOf(this.instanceId);
	}

}
