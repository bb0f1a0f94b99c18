package io.github.incrementalrebalance.benchmarks;

import java.util.Arrays;
import java.util.List;

/**
 * How a group loses or gains a member, compared side by side on the same data: on Kafka's classic group protocol
 * (Kafka's assignor, learners) and on its streams protocol (the broker assigns).
 */
enum Strategy {

	/** Kafka's assignor; the instance closes as Spring closes it, without a leave-group. */
	KAFKA_DEFAULT("kafka-default", false, 0),

	/** Kafka's assignor; the instance closes with a real leave-group (incremental-rebalance's client supplier). */
	KAFKA_TUNED("kafka-tuned", false, 0),

	/** kafka-tuned with one standby replica per task: what users deploy to avoid restores, at twice the state. */
	KAFKA_STANDBY("kafka-standby", false, 1),

	/** Learners; a leaving instance's tasks move one by one as their learners get ready. */
	LEARNER_EAGER("learner-eager", true, 0),

	/** Learners; a leaving instance's tasks move together, through one hand-over. */
	LEARNER_CONSERVATIVE("learner-conservative", true, 0),

	/** The streams protocol (the broker assigns); Kafka Streams' close with a real leave-group. */
	STREAMS_CLOSE("streams-close", false, 0, true),

	/** streams-close with one caught-up standby of every task, placed by the broker. */
	STREAMS_STANDBY("streams-standby", false, 1, true),

	/** The streams protocol's drain: it hands over once every instance that stays holds a ready standby (2 of 3). */
	STREAMS_DRAIN("streams-drain", true, 2, true);

	private final String id;

	private final boolean learners;

	private final int standbys;

	private final boolean streamsProtocol;

	Strategy(String id, boolean learners, int standbys) {
		this(id, learners, standbys, false);
	}

	Strategy(String id, boolean learners, int standbys, boolean streamsProtocol) {
		this.id = id;
		this.learners = learners;
		this.standbys = standbys;
		this.streamsProtocol = streamsProtocol;
	}

	/**
	 * @return the strategies of Kafka's classic group protocol, where the library places learners
	 */
	static List<Strategy> classic() {
		return Arrays.stream(values()).filter((strategy) -> !strategy.streamsProtocol).toList();
	}

	/**
	 * @return the strategies of Kafka's streams group protocol (Kafka 4.4 brokers and clients)
	 */
	static List<Strategy> streamsProtocol() {
		return Arrays.stream(values()).filter((strategy) -> strategy.streamsProtocol).toList();
	}

	/**
	 * The strategies a run compares: all of a scenario's, or those {@code -Dbenchmark.strategies} names (ids, comma
	 * separated), for an experiment on one of them.
	 * @param strategies the scenario's
	 * @return those to run, in the scenario's order
	 * @throws IllegalArgumentException naming the scenario's ids when a name is none of them
	 */
	static List<Strategy> chosen(List<Strategy> strategies) {
		String names = System.getProperty("benchmark.strategies", "").strip();
		if (names.isEmpty()) {
			return strategies;
		}
		List<String> ids = strategies.stream().map(Strategy::id).toList();
		List<String> asked = Arrays.stream(names.split(",")).map(String::strip).toList();
		asked.stream().filter((name) -> !ids.contains(name)).findFirst().ifPresent((name) -> {
			throw new IllegalArgumentException(
					"-Dbenchmark.strategies names '" + name + "', which this scenario does not run; it runs " + ids);
		});
		return strategies.stream().filter((strategy) -> asked.contains(strategy.id())).toList();
	}

	boolean isStreamsProtocol() {
		return this.streamsProtocol;
	}

	String id() {
		return this.id;
	}

	boolean learners() {
		return this.learners;
	}

	int standbys() {
		return this.standbys;
	}

}
