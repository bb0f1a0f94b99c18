package io.github.incrementalrebalance.cli;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

import io.github.incrementalrebalance.config.LearnerConfig;
import io.github.incrementalrebalance.control.ControlClients;
import io.github.incrementalrebalance.control.ControlRecord;
import io.github.incrementalrebalance.control.ControlTopicReader;
import io.github.incrementalrebalance.control.ControlTopicWriter;
import io.github.incrementalrebalance.control.ControlWriteException;
import io.github.incrementalrebalance.control.LeaveCancel;
import io.github.incrementalrebalance.control.LeaveRecord;
import io.github.incrementalrebalance.control.StreamsGroupStarts;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.ConfigException;

/**
 * The control topic as one command uses it: read up to its end before anything is decided, written only by commands
 * that write.
 */
final class ControlSession implements AutoCloseable {

	/**
	 * How many of the control topic's timeouts reading it to its end may take: a request for its end, the fetches, a
	 * request for the reader's position.
	 */
	private static final int READ_REQUESTS = 3;

	private final Map<String, Object> config;

	private final String topic;

	private final ControlTopicReader reader;

	private ControlTopicWriter writer;

	private ControlSession(Map<String, Object> config, String topic) {
		this.config = config;
		this.topic = topic;
		this.reader = new ControlTopicReader(config, topic);
	}

	/**
	 * Read the control topic of a group up to its end.
	 * @param connection where the group is
	 * @return the session
	 * @throws Unavailable when the config cannot be read or the topic not read within three of the control topic's
	 * timeouts ({@value LearnerConfig#CONTROL_TOPIC_TIMEOUT_MS_CONFIG}, 30 s by default)
	 */
	static ControlSession open(ConnectionOptions connection) {
		Map<String, Object> config;
		Duration readWithin;
		try {
			config = connection.clientConfig();
			readWithin = new LearnerConfig(config).controlTopicTimeout().multipliedBy(READ_REQUESTS);
		}
		catch (IOException | ConfigException ex) {
			throw new Unavailable("cannot read --command-config " + connection.commandConfig + ": " + ex.getMessage());
		}
		ControlSession session = new ControlSession(config, connection.controlTopic());
		session.reader.start();
		if (!session.reader.awaitCaughtUp(readWithin)) {
			session.close();
			throw new Unavailable("could not read control topic " + connection.controlTopic() + " within " + readWithin
					+ " (" + READ_REQUESTS + " times " + LearnerConfig.CONTROL_TOPIC_TIMEOUT_MS_CONFIG
					+ ", which --command-config may set)"
					+ session.reader.problem().map((problem) -> ": " + problem).orElse(""));
		}
		return session;
	}

	ControlTopicReader reader() {
		return this.reader;
	}

	/**
	 * The members to ask: the last plan's, or under Kafka's streams protocol, where no plan names them, the group's as
	 * the broker describes it.
	 * @param groupId the group (the application id)
	 * @return the starts of a streams group by instance id; empty when a plan names the members, or the group is none
	 */
	Optional<Map<String, List<String>>> streamsGroupStarts(String groupId) {
		if (this.reader.planEpoch().isPresent()) {
			return Optional.empty();
		}
		try (Admin admin = ControlClients.ofControlTopic(this.config).admin()) {
			return StreamsGroupStarts.describe(admin, groupId, new LearnerConfig(this.config).controlTopicTimeout());
		}
	}

	/**
	 * @param groupId the group (the application id)
	 * @return the instance ids of the group's members: the last plan's, or the streams group's
	 */
	SortedSet<String> memberIds(String groupId) {
		SortedSet<String> ids = new TreeSet<>();
		this.reader.plans().forEach((plan) -> ids.add(plan.instanceId()));
		if (ids.isEmpty()) {
			streamsGroupStarts(groupId).ifPresent((starts) -> ids.addAll(starts.keySet()));
		}
		return ids;
	}

	/**
	 * Write a record and wait for the cluster to acknowledge it.
	 * @param record the record
	 * @throws Unavailable when it was not written, or whether it was is unknown (the message says which)
	 */
	void write(ControlRecord record) {
		try {
			writer().writeAndWait(record, "write " + record.key());
		}
		catch (ControlWriteException ex) {
			throw new Unavailable(ex.getMessage());
		}
	}

	/**
	 * Cancel a leave and wait for the member's answer.
	 * @param pending the leave, as read pending
	 * @param answerWait how long to wait for the answer
	 * @return what came of it
	 * @throws Unavailable when the cancel was not written, or whether it was is unknown (the message says which)
	 */
	LeaveCancel.Result cancel(LeaveRecord pending, Duration answerWait) {
		try {
			return new LeaveCancel(this.reader, writer()).cancel(pending, "cli", answerWait);
		}
		catch (ControlWriteException ex) {
			throw new Unavailable(ex.getMessage());
		}
	}

	private ControlTopicWriter writer() {
		if (this.writer == null) {
			this.writer = new ControlTopicWriter(this.config, this.topic);
		}
		return this.writer;
	}

	@Override
	public void close() {
		if (this.writer != null) {
			this.writer.close();
		}
		this.reader.close();
	}

	/**
	 * The cluster or the control topic cannot be used: exit status {@link ExitCodes#UNAVAILABLE}.
	 */
	static final class Unavailable extends RuntimeException {

		private static final long serialVersionUID = 1L;

		Unavailable(String message) {
			super(message);
		}

	}

}
