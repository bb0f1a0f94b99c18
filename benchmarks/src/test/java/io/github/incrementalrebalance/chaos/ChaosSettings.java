package io.github.incrementalrebalance.chaos;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;

/**
 * How the chaos run is sized.
 *
 * @param events how many scale events
 * @param seed the seed of the event sequence: the same seed replays the same sequence
 * @param instances instances at the start (the run keeps between 2 and 5)
 * @param keysPerTask state records per stateful task
 * @param restoreRate records per second an instance restores (a slower disk), so warm-ups take seconds
 * @param updatesPerSecond input records per second besides the markers
 * @param convergeWithin how long the group may take to settle after an event
 * @param faults whether the run injects network faults between the members and the broker (the members then reach
 * the broker through a proxy)
 * @param heartbeat the members' heartbeat interval
 * @param session the members' session timeout
 * @param brokers 1, a broker behind the fault proxy; or 3, the three-broker cluster (replication 3,
 * {@code min.insync.replicas} 2), whose brokers the run bounces and which has no proxy
 * @param kinds the kinds of event the run draws from; empty for every kind (the faults only with {@code faults})
 */
record ChaosSettings(int events, long seed, int instances, int keysPerTask, long restoreRate, int updatesPerSecond,
		Duration convergeWithin, boolean faults, Duration heartbeat, Duration session, int brokers,
		Set<ChaosEvent> kinds) {

	static final int MIN_INSTANCES = 2;

	static final int MAX_INSTANCES = 5;

	ChaosSettings {
		if (instances < MIN_INSTANCES || instances > MAX_INSTANCES) {
			throw new IllegalArgumentException("chaos.instances must be between " + MIN_INSTANCES + " and "
					+ MAX_INSTANCES + ", was " + instances);
		}
		if (events < 1) {
			throw new IllegalArgumentException("chaos.events must be at least 1, was " + events);
		}
		if (brokers != 1 && brokers != 3) {
			throw new IllegalArgumentException("chaos.brokers must be 1 or 3, was " + brokers);
		}
		if (brokers == 1 && kinds.stream().anyMatch(ChaosEvent::cluster)) {
			throw new IllegalArgumentException("chaos.kinds " + kinds + " names broker bounces, which need "
					+ "chaos.brokers=3");
		}
		if (!faults && kinds.stream().anyMatch(ChaosEvent::fault)) {
			throw new IllegalArgumentException("chaos.kinds " + kinds + " names faults, which a run with chaos.faults="
					+ "false does not apply");
		}
		kinds = Set.copyOf(kinds);
	}

	/**
	 * The settings of a run on demand: {@code -Dchaos.events} (50), {@code -Dchaos.seed} (random),
	 * {@code -Dchaos.instances} (3), {@code -Dchaos.faults} (true), {@code -Dchaos.heartbeat.ms} (500) and
	 * {@code -Dchaos.session.ms} (6000; Kafka's defaults are 3000 and 45000), {@code -Dchaos.brokers} (1; 3 runs on the
	 * three-broker cluster, with broker bounces, the proxy in front of every broker), {@code -Dchaos.kinds} (every kind; a
	 * comma-separated list of the words the report uses, e.g. {@code slow-call-during-leave,leave}, to replay one kind
	 * of event many times). An event may take a few sessions to settle: the bound grows with the session.
	 * @return the settings
	 */
	static ChaosSettings fromSystemProperties() {
		String seed = System.getProperty("chaos.seed");
		Duration session = Duration.ofMillis(Long.getLong("chaos.session.ms", 6_000));
		int brokers = brokersFromSystemProperties();
		return new ChaosSettings(Integer.getInteger("chaos.events", 50),
				(seed != null) ? Long.parseLong(seed) : ThreadLocalRandom.current().nextLong(),
				Integer.getInteger("chaos.instances", 3), 20_000, 5_000, 100,
				Duration.ofMinutes(3).plus(session.multipliedBy(4)),
				faultsFromSystemProperties(),
				Duration.ofMillis(Long.getLong("chaos.heartbeat.ms", 500)), session, brokers,
				kinds(System.getProperty("chaos.kinds", "")));
	}

	/**
	 * {@code -Dchaos.brokers}: 1 (the default) or 3.
	 * @return the number
	 */
	static int brokersFromSystemProperties() {
		return Integer.getInteger("chaos.brokers", 1);
	}

	/**
	 * {@code -Dchaos.faults}: true (the default) or false.
	 * @return whether the members reach the brokers through the fault proxy
	 */
	static boolean faultsFromSystemProperties() {
		return Boolean.parseBoolean(System.getProperty("chaos.faults", "true"));
	}

	private static Set<ChaosEvent> kinds(String words) {
		List<String> accepted = Arrays.stream(ChaosEvent.values()).map(ChaosEvent::word).toList();
		return Arrays.stream(words.split(","))
			.map(String::trim)
			.filter((word) -> !word.isEmpty())
			.map((word) -> Arrays.stream(ChaosEvent.values())
				.filter((kind) -> kind.word().equals(word.toLowerCase(Locale.ROOT)))
				.findFirst()
				.orElseThrow(() -> new IllegalArgumentException(
						"chaos.kinds: unknown kind '" + word + "'; accepted: " + String.join(", ", accepted))))
			.collect(Collectors.toSet());
	}

}
