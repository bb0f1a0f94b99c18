package io.github.incrementalrebalance.member;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Properties;

import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * What the Kafka clients on the class path offer for a member that leaves its group on close, detected once per JVM.
 * <p>
 * Up to Kafka 4.1 a classic consumer sends a LeaveGroup only when its internal setting
 * {@code internal.leave.group.on.close} is true, and Kafka Streams sets it to false: the member wrapper must set it
 * back. Kafka 4.2 removed that setting (KAFKA-18185) for a public close option (KIP-1153,
 * {@code org.apache.kafka.streams.CloseOptions}), and its stream threads close their consumers with an explicit
 * {@code REMAIN_IN_GROUP} unless Kafka Streams was closed with {@code LEAVE_GROUP}. Kafka 4.4 added a {@code DEFAULT}
 * operation to that option (KIP-1284), Kafka Streams' close without options: its stream threads still close a classic
 * consumer with {@code REMAIN_IN_GROUP}, so the member's leave-on-close policy decides there as on 4.2 and 4.3.
 * <p>
 * Each capability is detected by the presence of the public class or constant rather than by parsing a version
 * string, so a patched or vendor build is judged by what it has. The version itself, for the log only, comes from the
 * clients jar's own metadata ({@code kafka/kafka-version.properties}), which every Kafka release since 0.9 carries.
 *
 * @param kafkaVersion the version the clients report, {@code unknown} when their jar does not say
 * @param publicCloseOptions whether Kafka Streams has the public close option (Kafka 4.2 and later)
 * @param defaultCloseOperation whether that option has the {@code DEFAULT} operation (Kafka 4.4 and later)
 */
public record ClientCapabilities(String kafkaVersion, boolean publicCloseOptions, boolean defaultCloseOperation) {

	private static final String PUBLIC_CLOSE_OPTIONS_CLASS = "org.apache.kafka.streams.CloseOptions";

	private static final String MEMBERSHIP_OPERATION_CLASS = PUBLIC_CLOSE_OPTIONS_CLASS + "$GroupMembershipOperation";

	private static final String VERSION_RESOURCE = "/kafka/kafka-version.properties";

	private static final ClientCapabilities DETECTED = new ClientCapabilities(clientsVersion(),
			classPresent(PUBLIC_CLOSE_OPTIONS_CLASS), enumConstantPresent(MEMBERSHIP_OPERATION_CLASS, "DEFAULT"));

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
		String clients = "Kafka clients " + this.kafkaVersion + ": ";
		if (!this.publicCloseOptions) {
			return clients + "members leave through internal.leave.group.on.close=true "
					+ "(no public close option before Kafka 4.2) and an explicit GroupMembershipOperation on close";
		}
		if (this.defaultCloseOperation) {
			return clients + "members leave through the public close option (GroupMembershipOperation, KIP-1153); "
					+ "Kafka Streams' DEFAULT close (KIP-1284, a stay for a classic-protocol member) and its "
					+ "REMAIN_IN_GROUP are replaced by the member's leave-on-close policy";
		}
		return clients + "members leave through the public close option (GroupMembershipOperation, KIP-1153); "
				+ "Kafka Streams' default REMAIN_IN_GROUP is replaced by the member's leave-on-close policy";
	}

	private static String clientsVersion() {
		try (InputStream in = KafkaConsumer.class.getResourceAsStream(VERSION_RESOURCE)) {
			if (in == null) {
				return "unknown";
			}
			Properties properties = new Properties();
			properties.load(in);
			return properties.getProperty("version", "unknown").trim();
		}
		catch (IOException ex) {
			return "unknown";
		}
	}

	private static boolean classPresent(String className) {
		return load(className) != null;
	}

	private static boolean enumConstantPresent(String className, String constant) {
		Class<?> type = load(className);
		return type != null && type.isEnum()
				&& Arrays.stream(type.getEnumConstants()).anyMatch((value) -> ((Enum<?>) value).name().equals(constant));
	}

	private static Class<?> load(String className) {
		try {
			return Class.forName(className, false, ClientCapabilities.class.getClassLoader());
		}
		catch (ClassNotFoundException ex) {
			return null;
		}
	}

}
