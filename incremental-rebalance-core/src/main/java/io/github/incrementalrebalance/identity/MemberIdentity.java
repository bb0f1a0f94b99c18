package io.github.incrementalrebalance.identity;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

import io.github.incrementalrebalance.planner.RebalancingMode;

/**
 * Who a member is, carried to the leader in two client tags (Kafka allows five, values up to 30 characters): the
 * instance id, and the incarnation, mode and start time packed into one value.
 *
 * @param instanceId the operator's name of the instance, {@code [A-Za-z0-9._-]{1,30}}
 * @param incarnation random per start, so a leave request for an earlier start is recognised as stale
 * @param mode the rebalancing mode the member runs
 * @param startedAt when the member started, to the second
 */
public record MemberIdentity(String instanceId, String incarnation, RebalancingMode mode, Instant startedAt) {

	/** Client tag key of the instance id. */
	public static final String INSTANCE_TAG = "ir.instance";

	/** Client tag key of incarnation, mode and start time. */
	public static final String META_TAG = "ir.meta";

	private static final Pattern INSTANCE_ID = Pattern.compile("[A-Za-z0-9._-]{1,30}");

	private static final Pattern INCARNATION = Pattern.compile("[0-9a-z]{1,12}");

	private static final SecureRandom random = new SecureRandom();

	public MemberIdentity {
		Objects.requireNonNull(instanceId, "instanceId");
		Objects.requireNonNull(incarnation, "incarnation");
		Objects.requireNonNull(mode, "mode");
		Objects.requireNonNull(startedAt, "startedAt");
		if (!INSTANCE_ID.matcher(instanceId).matches()) {
			throw new IllegalArgumentException("instance id '" + instanceId
					+ "' is invalid: use 1 to 30 characters of A-Z, a-z, 0-9, '.', '_' and '-'");
		}
		if (!INCARNATION.matcher(incarnation).matches()) {
			throw new IllegalArgumentException("incarnation '" + incarnation + "' is invalid: use 1 to 12 of 0-9, a-z");
		}
		startedAt = Instant.ofEpochSecond(startedAt.getEpochSecond());
	}

	/**
	 * The default instance id: the pod name in Kubernetes ({@code HOSTNAME}, its last 30 characters), else
	 * {@code <short-host>-<pid>}.
	 */
	public static String defaultInstanceId() {
		String hostname = System.getenv("HOSTNAME");
		String base;
		if (hostname != null && !hostname.isBlank()) {
			base = hostname;
		}
		else {
			String host;
			try {
				host = InetAddress.getLocalHost().getHostName();
			}
			catch (UnknownHostException ex) {
				host = "instance";
			}
			base = host.split("\\.")[0] + "-" + ManagementFactory.getRuntimeMXBean().getPid();
		}
		String sanitized = base.replaceAll("[^A-Za-z0-9._-]", "-");
		return (sanitized.length() > 30) ? sanitized.substring(sanitized.length() - 30) : sanitized;
	}

	/**
	 * The identity of a new start of an instance.
	 * @param instanceId the instance id
	 * @param mode the mode it runs
	 * @param now the start time
	 * @return the identity, with a fresh random incarnation
	 */
	public static MemberIdentity newIncarnation(String instanceId, RebalancingMode mode, Instant now) {
		String incarnation = Long.toString(random.nextLong() >>> 23, 36);
		return new MemberIdentity(instanceId, incarnation, mode, now);
	}

	/**
	 * The client tags carrying this identity.
	 * @return tag key to value
	 */
	public Map<String, String> clientTags() {
		Map<String, String> tags = new HashMap<>();
		tags.put(INSTANCE_TAG, this.instanceId);
		tags.put(META_TAG, this.incarnation + ":" + (this.mode == RebalancingMode.UPGRADING ? "u" : "i") + ":"
				+ Long.toString(this.startedAt.getEpochSecond(), 36));
		return tags;
	}

	/**
	 * Read an identity from a member's client tags.
	 * @param tags the tags the leader sees
	 * @return the identity, empty when the member sets no (or malformed) identity tags
	 */
	public static Optional<MemberIdentity> fromClientTags(Map<String, String> tags) {
		String instanceId = tags.get(INSTANCE_TAG);
		String meta = tags.get(META_TAG);
		if (instanceId == null || meta == null) {
			return Optional.empty();
		}
		String[] parts = meta.split(":");
		if (parts.length != 3 || !(parts[1].equals("i") || parts[1].equals("u"))) {
			return Optional.empty();
		}
		try {
			return Optional.of(new MemberIdentity(instanceId, parts[0],
					parts[1].equals("u") ? RebalancingMode.UPGRADING : RebalancingMode.INCREMENTAL,
					Instant.ofEpochSecond(Long.parseLong(parts[2], 36))));
		}
		catch (IllegalArgumentException ex) {
			return Optional.empty();
		}
	}

}
