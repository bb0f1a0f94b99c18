package io.github.incrementalrebalance.control;

import java.util.Optional;
import java.util.function.Supplier;

import io.github.incrementalrebalance.control.ControlTopicProbe.Described;
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

	private final Supplier<Optional<Described>> described;

	/** The id of the topic whose records the views hold, once the probe told it. */
	private volatile Uuid reading;

	/**
	 * While the id of what is read is not known: the number of the probe's last answer when the reader started over,
	 * an answer that may describe a topic deleted since (the probe asks at an interval). Only the reader's thread
	 * touches it.
	 */
	private long answeredBefore;

	/**
	 * @param topic the control topic
	 * @param described the probe's last answer ({@link ControlTopicProbe#described()})
	 */
	ReadTopicIdentity(String topic, Supplier<Optional<Described>> described) {
		this.topic = topic;
		this.described = described;
	}

	/**
	 * The id of another topic of that name than the one read, when the probe found one: its records are the only
	 * current ones. While the id of what is read is not known yet, the probe's first answer given after the reader
	 * started over is taken for it.
	 * @return the new topic's id, empty while the probe describes the topic read (or nothing)
	 */
	Optional<Uuid> replacement() {
		Optional<Described> described = this.described.get();
		if (described.isEmpty()) {
			return Optional.empty();
		}
		if (this.reading == null) {
			if (described.get().answer() <= this.answeredBefore) {
				// a topic deleted and created again between two answers: taking this one's id for the topic read
				// would make the probe's next answer, the new topic's id, a replacement, and the reader start over
				// a second time
				return Optional.empty();
			}
			this.reading = described.get().topicId();
		}
		return Optional.of(described.get().topicId()).filter((id) -> !id.equals(this.reading));
	}

	/**
	 * The reader starts over.
	 * @param topicId the id of the topic it reads next, so that a probe still answering with it is not taken for
	 * another replacement; null when not known (the id of the probe's next answer is taken)
	 */
	void readingNext(Uuid topicId) {
		this.reading = topicId;
		this.answeredBefore = this.described.get().map(Described::answer).orElse(0L);
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
		return this.described.get()
			.map(Described::topicId)
			.filter((described) -> read != null && !described.equals(read))
			.map((described) -> "control topic " + this.topic + " was deleted and created again: its records are read "
					+ "again from the beginning, and the last view is history meanwhile");
	}

}
