package io.github.incrementalrebalance.identity;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

import io.github.incrementalrebalance.planner.RebalancingMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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

	/** The longest instance id: Kafka's limit on a client tag's value. */
	public static final int MAX_INSTANCE_ID = 30;

	private static final Pattern INSTANCE_ID = Pattern.compile("[A-Za-z0-9._-]{1," + MAX_INSTANCE_ID + "}");

	/** A name an instance id may be made from: up to a DNS name's 253 characters (a pod's name has at most 63). */
	private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,253}");

	/** How many characters of a long name its id keeps, before '-' and 8 hex digits of the name's hash. */
	private static final int KEPT = MAX_INSTANCE_ID - 9;

	private static final Pattern INCARNATION = Pattern.compile("[0-9a-z]{1,12}");

	private static final SecureRandom random = new SecureRandom();

	private static final Logger logger = LoggerFactory.getLogger(MemberIdentity.class);

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
	 * The instance id of this member: the one configured, else the pod's name in Kubernetes ({@code HOSTNAME}), else
	 * {@code <short-host>-<pid>}; a name longer than {@value #MAX_INSTANCE_ID} characters is shortened by
	 * {@link #instanceIdOf(String)}, and the log says to what.
	 * @param configured {@code incremental.rebalance.instance.id}, if set
	 * @return the instance id
	 * @throws IllegalArgumentException when the configured id has characters an id cannot have
	 */
	public static String instanceIdFor(Optional<String> configured) {
		String name = configured.orElseGet(MemberIdentity::defaultName);
		String id = instanceIdOf(name);
		if (!id.equals(name)) {
			logger.info("{} is longer than Kafka's client tags allow ({} characters): this member's instance id is {}; "
					+ "the endpoint and the command line take either", name, MAX_INSTANCE_ID, id);
		}
		return id;
	}

	private static String defaultName() {
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
		return (sanitized.length() > 253) ? sanitized.substring(0, 253) : sanitized;
	}

	/**
	 * The instance id a name stands for. A name that fits Kafka's client tags (1 to 30 characters) is its own id; a
	 * longer one (a Kubernetes pod's name has up to 63) is shortened the same way wherever it is given (the member's
	 * configuration, the endpoint, the command line): its first 21 characters, {@code -}, and the first 8 hex digits
	 * of its SHA-256, so that two names do not share an id and the operator may use either.
	 * @param name the name, 1 to 253 characters of A-Z, a-z, 0-9, '.', '_' and '-'
	 * @return the instance id
	 * @throws IllegalArgumentException when the name is empty, longer, or has other characters
	 */
	public static String instanceIdOf(String name) {
		Objects.requireNonNull(name, "name");
		if (INSTANCE_ID.matcher(name).matches()) {
			return name;
		}
		if (!NAME.matcher(name).matches()) {
			throw new IllegalArgumentException("instance id '" + name + "' is invalid: use 1 to 253 characters of "
					+ "A-Z, a-z, 0-9, '.', '_' and '-' (one longer than " + MAX_INSTANCE_ID + " is shortened to its "
					+ "first " + KEPT + " characters and a hash of the whole)");
		}
		try {
			byte[] hash = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
			return name.substring(0, KEPT) + "-" + HexFormat.of().formatHex(hash, 0, 4);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is missing from this JVM", ex);
		}
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
