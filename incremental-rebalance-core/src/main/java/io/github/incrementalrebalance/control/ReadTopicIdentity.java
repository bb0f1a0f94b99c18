package io.github.incrementalrebalance.control;

import java.util.Optional;

import org.apache.kafka.common.Uuid;

/**
 * Which topic of the control topic's name the reader's views hold, against the one the {@link ControlTopicProbe probe}
 * described last: a topic deleted and created again has a new id, and until the reader starts over on it what the
 * views hold is history of a deleted topic.
 * <p>
 * The reader's thread tells it what it reads ({@link #replacement()}, {@link #readingNext}); any thread may ask
 * {@link #reading()} and {@link #problem()}.
 */
final class ReadTopicIdentity {

	private final String topic;

	private final ControlTopicProbe probe;

	/** The id of the topic whose records the views hold, once the probe told it. */
	private volatile Uuid reading;

	ReadTopicIdentity(String topic, ControlTopicProbe probe) {
		this.topic = topic;
		this.probe = probe;
	}

	/**
	 * The id of another topic of that name than the one read, when the probe found one: its records are the only
	 * current ones. While the id of what is read is not known yet, the probe's answer is taken for it.
	 * @return the new topic's id, empty while the probe describes the topic read (or nothing)
	 */
	Optional<Uuid> replacement() {
		Optional<Uuid> described = this.probe.topicId();
		if (described.isPresent() && this.reading == null) {
			this.reading = described.get();
		}
		return described.filter((id) -> !id.equals(this.reading));
	}

	/**
	 * The reader starts over.
	 * @param topicId the id of the topic it reads next, so that a probe still answering with it is not taken for
	 * another replacement; null when not known (the next id the probe describes is taken)
	 */
	void readingNext(Uuid topicId) {
		this.reading = topicId;
	}

	/**
	 * The id of the topic whose records the views hold.
	 * @return the id, empty until the cluster described it
	 */
	Optional<Uuid> reading() {
		return Optional.ofNullable(this.reading);
	}

	/**
	 * The probe already described another topic of that name than the one the views hold, and the reader has not
	 * started over on it yet. Without this the probe's first answer about the new topic cleared the reader's problem a
	 * moment before the reader started over, and health read UP in between.
	 * @return why the views are history, empty while they are not known to be
	 */
	Optional<String> problem() {
		Uuid read = this.reading;
		return this.probe.topicId()
			.filter((described) -> read != null && !described.equals(read))
			.map((described) -> "control topic " + this.topic + " was deleted and created again: its records are read "
					+ "again from the beginning, and the last view is history meanwhile");
	}

}
