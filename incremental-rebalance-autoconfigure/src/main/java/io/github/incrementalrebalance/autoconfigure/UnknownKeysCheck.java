package io.github.incrementalrebalance.autoconfigure;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Says at start which keys under {@code incremental-rebalance.} the starter does not know, at WARN naming the key that
 * replaced an old name or the nearest known one; with {@code incremental-rebalance.fail-on-unknown-keys=true} it refuses
 * to start instead ({@link UnknownKeysException}), before any Kafka Streams joins its group.
 */
final class UnknownKeysCheck implements InitializingBean {

	private static final Logger logger = LoggerFactory.getLogger(UnknownKeysCheck.class);

	private final ConfigurableEnvironment environment;

	private final boolean failOnUnknownKeys;

	UnknownKeysCheck(ConfigurableEnvironment environment, boolean failOnUnknownKeys) {
		this.environment = environment;
		this.failOnUnknownKeys = failOnUnknownKeys;
	}

	@Override
	public void afterPropertiesSet() {
		List<UnknownKeys.Unknown> unknown = UnknownKeys.fromMetadata(UnknownKeysCheck.class.getClassLoader())
			.in(this.environment);
		if (unknown.isEmpty()) {
			return;
		}
		if (this.failOnUnknownKeys) {
			throw new UnknownKeysException(unknown);
		}
		unknown.forEach((key) -> logger.warn("{}; incremental-rebalance.fail-on-unknown-keys=true refuses to start "
				+ "instead", key.describe()));
	}

}
