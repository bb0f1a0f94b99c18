package io.github.incrementalrebalance.config;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import io.github.incrementalrebalance.assignor.LearnerRebalance;
import io.github.incrementalrebalance.assignor.RebalancingMode;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * The Kafka-style keys of incremental-rebalance, read from the Kafka Streams config. An invalid value fails with a
 * {@link ConfigException} naming the key, the value and what is accepted.
 */
public final class LearnerConfig extends AbstractConfig {

	/** {@code incremental} (the learner assignor) or {@code upgrading} (Kafka's own assignor). */
	public static final String REBALANCING_MODE_CONFIG = "stream.rebalancing.mode";

	/** How long a leaving member waits for its learners; unset means however long it takes. */
	public static final String SCALE_DOWN_TIMEOUT_MS_CONFIG = "scale.down.timeout.ms";

	/** Tolerated ratio between the most and the least loaded member. */
	public static final String BALANCING_FACTOR_CONFIG = "stream.worker.balancing.factor";

	/** {@code eager} or {@code conservative}. */
	public static final String LEARNER_REBALANCE_TRIGGER_CONFIG = "learner.rebalance.trigger";

	/** The safety-net follow-up while learners exist. */
	public static final String LEARNER_PROBE_INTERVAL_MS_CONFIG = "learner.probe.interval.ms";

	private static final ConfigDef CONFIG = new ConfigDef()
		.define(REBALANCING_MODE_CONFIG, Type.STRING, "incremental", ConfigDef.CaseInsensitiveValidString.in("incremental", "upgrading"),
				Importance.HIGH,
				"incremental: the learner assignor; upgrading: Kafka's own assignor while a group rolls onto or off "
						+ "this library.")
		.define(SCALE_DOWN_TIMEOUT_MS_CONFIG, Type.LONG, null, ConfigDef.LambdaValidator.with((name, value) -> {
			if (value != null && (Long) value < 0) {
				throw new ConfigException(name, value, "must be >= 0 milliseconds, or unset to wait for learners");
			}
		}, () -> "milliseconds >= 0, or unset"), Importance.MEDIUM,
				"How long a leaving member waits for its learners before it leaves anyway.")
		.define(BALANCING_FACTOR_CONFIG, Type.DOUBLE, 2.0, ConfigDef.Range.atLeast(1.0), Importance.MEDIUM,
				"Tolerated ratio of tasks per thread between the most and the least loaded member.")
		.define(LEARNER_REBALANCE_TRIGGER_CONFIG, Type.STRING, "conservative",
				ConfigDef.CaseInsensitiveValidString.in("eager", "conservative"), Importance.MEDIUM,
				"eager: a leaving member's tasks move one by one as their learners get ready; conservative: "
						+ "together, once all are ready.")
		.define(LEARNER_PROBE_INTERVAL_MS_CONFIG, Type.LONG, 30_000L, ConfigDef.Range.atLeast(1), Importance.LOW,
				"Follow-up rebalance interval while learners exist (a safety net: members trigger moves themselves).");

	public LearnerConfig(Map<?, ?> originals) {
		super(CONFIG, originals, false);
	}

	/**
	 * The keys with their validators and documentation.
	 * @return the definition
	 */
	public static ConfigDef configDef() {
		return new ConfigDef(CONFIG);
	}

	public RebalancingMode rebalancingMode() {
		return RebalancingMode.valueOf(getString(REBALANCING_MODE_CONFIG).toUpperCase(Locale.ROOT));
	}

	public Optional<Duration> scaleDownTimeout() {
		return Optional.ofNullable(getLong(SCALE_DOWN_TIMEOUT_MS_CONFIG)).map(Duration::ofMillis);
	}

	public double balancingFactor() {
		return getDouble(BALANCING_FACTOR_CONFIG);
	}

	public LearnerRebalance learnerRebalance() {
		return LearnerRebalance.valueOf(getString(LEARNER_REBALANCE_TRIGGER_CONFIG).toUpperCase(Locale.ROOT));
	}

	public Duration learnerProbeInterval() {
		return Duration.ofMillis(getLong(LEARNER_PROBE_INTERVAL_MS_CONFIG));
	}

}
