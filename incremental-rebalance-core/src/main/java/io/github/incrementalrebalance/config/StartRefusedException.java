package io.github.incrementalrebalance.config;

import org.apache.kafka.common.config.ConfigException;

/**
 * A setting incremental-rebalance cannot run with, found at start: which one, why, and what is accepted. A Kafka
 * {@link ConfigException}, as Kafka Streams refuses a bad setting, and one a framework can explain (Spring Boot's
 * failure analyzer does).
 */
public final class StartRefusedException extends ConfigException {

	private static final long serialVersionUID = 1L;

	private final String setting;

	private final String why;

	private final String accepted;

	/**
	 * @param setting the setting refused
	 * @param why why it cannot be run with
	 * @param accepted what is accepted instead
	 */
	public StartRefusedException(String setting, String why, String accepted) {
		super(why + "; accepted: " + accepted);
		this.setting = setting;
		this.why = why;
		this.accepted = accepted;
	}

	public String setting() {
		return this.setting;
	}

	public String why() {
		return this.why;
	}

	public String accepted() {
		return this.accepted;
	}

}
