package io.github.incrementalrebalance.member;

import org.apache.kafka.common.utils.AppInfoParser;

/**
 * What the Kafka clients on the class path offer for a member that leaves its group on close, detected once per JVM.
 * <p>
 * Up to Kafka 4.1 a classic consumer sends a LeaveGroup only when its internal setting
 * {@code internal.leave.group.on.close} is true, and Kafka Streams sets it to false: the member wrapper must set it
 * back. Kafka 4.2 removed that setting (KAFKA-18185) for a public close option (KIP-1153,
 * {@code org.apache.kafka.streams.CloseOptions}), and its stream threads close their consumers with an explicit
 * {@code REMAIN_IN_GROUP} unless Kafka Streams was closed with {@code LEAVE_GROUP}. The public option is detected by
 * the presence of its class rather than by parsing a version string, so a patched or vendor build is judged by what it
 * has.
 *
 * @param kafkaVersion the version the clients report
 * @param publicCloseOptions whether Kafka Streams has the public close option (Kafka 4.2 and later)
 */
public record ClientCapabilities(String kafkaVersion, boolean publicCloseOptions) {

	private static final String PUBLIC_CLOSE_OPTIONS_CLASS = "org.apache.kafka.streams.CloseOptions";

	private static final ClientCapabilities DETECTED = new ClientCapabilities(AppInfoParser.getVersion(),
			isPresent(PUBLIC_CLOSE_OPTIONS_CLASS));

	/**
	 * The capabilities of the clients this JVM runs.
	 * @return the detected capabilities
	 */
	public static ClientCapabilities detected() {
		return DETECTED;
	}

	/**
	 * Whether main consumers need {@code internal.leave.group.on.close=true} to be able to leave at all.
	 * @return true on clients without the public close option
	 */
	public boolean needsInternalLeaveSetting() {
		return !this.publicCloseOptions;
	}

	/**
	 * One line for the log: which path a leave takes on these clients.
	 * @return the description
	 */
	public String leavePath() {
		return this.publicCloseOptions
				? "Kafka clients " + this.kafkaVersion + ": members leave through the public close option "
						+ "(GroupMembershipOperation, KIP-1153); Kafka Streams' default REMAIN_IN_GROUP is replaced by "
						+ "the member's leave-on-close policy"
				: "Kafka clients " + this.kafkaVersion + ": members leave through internal.leave.group.on.close=true "
						+ "(no public close option before Kafka 4.2) and an explicit GroupMembershipOperation on close";
	}

	private static boolean isPresent(String className) {
		try {
			Class.forName(className, false, ClientCapabilities.class.getClassLoader());
			return true;
		}
		catch (ClassNotFoundException ex) {
			return false;
		}
	}

}
