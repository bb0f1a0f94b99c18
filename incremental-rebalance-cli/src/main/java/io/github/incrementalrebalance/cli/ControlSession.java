package io.github.incrementalrebalance.cli;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;

import io.github.incrementalrebalance.control.ControlRecord;
import io.github.incrementalrebalance.control.ControlTopicReader;
import io.github.incrementalrebalance.control.ControlTopicWriter;
import io.github.incrementalrebalance.control.ControlWriteException;

/**
 * The control topic as one command uses it: read up to its end before anything is decided, written only by commands
 * that write.
 */
final class ControlSession implements AutoCloseable {

	static final Duration TIMEOUT = Duration.ofSeconds(30);

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
	 * @throws Unavailable when the config cannot be read or the topic not read within {@link #TIMEOUT}
	 */
	static ControlSession open(ConnectionOptions connection) {
		Map<String, Object> config;
		try {
			config = connection.clientConfig();
		}
		catch (IOException ex) {
			throw new Unavailable("cannot read --command-config " + connection.commandConfig + ": " + ex.getMessage());
		}
		ControlSession session = new ControlSession(config, connection.controlTopic());
		session.reader.start();
		if (!session.reader.awaitCaughtUp(TIMEOUT)) {
			session.close();
			throw new Unavailable("could not read control topic " + connection.controlTopic() + " within " + TIMEOUT
					+ session.reader.problem().map((problem) -> ": " + problem).orElse(""));
		}
		return session;
	}

	ControlTopicReader reader() {
		return this.reader;
	}

	/**
	 * Write a record and wait for the cluster to acknowledge it.
	 * @param record the record
	 * @throws Unavailable when it was not written, or whether it was is unknown (the message says which)
	 */
	void write(ControlRecord record) {
		if (this.writer == null) {
			this.writer = new ControlTopicWriter(this.config, this.topic);
		}
		try {
			this.writer.writeAndWait(record, "write " + record.key());
		}
		catch (ControlWriteException ex) {
			throw new Unavailable(ex.getMessage());
		}
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
