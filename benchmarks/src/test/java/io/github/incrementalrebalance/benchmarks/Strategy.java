package io.github.incrementalrebalance.benchmarks;

/**
 * How a group loses or gains a member, compared side by side on the same data (DESIGN.md section 6).
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
	LEARNER_CONSERVATIVE("learner-conservative", true, 0);

	private final String id;

	private final boolean learners;

	private final int standbys;

	Strategy(String id, boolean learners, int standbys) {
		this.id = id;
		this.learners = learners;
		this.standbys = standbys;
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
