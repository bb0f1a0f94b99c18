package io.github.incrementalrebalance.control;

import java.util.Optional;

import io.github.incrementalrebalance.control.ControlTopicProbe.Described;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reader's view of which control topic it reads, fed the probe's answers in the orders a cluster gives them: the
 * probe asks at an interval, and a topic can be deleted and created again between two of its answers.
 */
class ReadTopicIdentityTests {

	private static final Uuid FIRST = new Uuid(0, 1);

	private static final Uuid SECOND = new Uuid(0, 2);

	private Optional<Described> answer = Optional.empty();

	private final ReadTopicIdentity identity = new ReadTopicIdentity("control", () -> this.answer);

	@Test
	void theProbesFirstAnswerIsTheTopicRead() {
		assertThat(this.identity.replacement()).isEmpty();
		assertThat(this.identity.reading()).isEmpty();

		this.answer = Optional.of(new Described(FIRST, 1));

		assertThat(this.identity.replacement()).isEmpty();
		assertThat(this.identity.reading()).contains(FIRST);
		assertThat(this.identity.problem()).isEmpty();
	}

	@Test
	void anotherTopicOfTheNameIsAReplacementAndTheViewsHistoryUntilTheReaderStartsOverOnIt() {
		reading(FIRST);

		this.answer = Optional.of(new Described(SECOND, 2));

		assertThat(this.identity.problem()).hasValueSatisfying((problem) -> assertThat(problem)
			.contains("control topic control was deleted and created again"));
		assertThat(this.identity.replacement()).contains(SECOND);
		this.identity.readingNext(SECOND);
		assertThat(this.identity.replacement()).isEmpty();
		assertThat(this.identity.problem()).isEmpty();
		assertThat(this.identity.reading()).contains(SECOND);
	}

	@Test
	void aTopicDeletedAndCreatedAgainBetweenTwoAnswersIsReadOnce() {
		reading(FIRST);
		// the reader's offset is past the new topic's end: it starts over without knowing on which topic
		this.identity.readingNext(null);

		assertThat(this.identity.replacement()).as("the answer given before, of the deleted topic").isEmpty();
		assertThat(this.identity.reading()).isEmpty();
		assertThat(this.identity.problem()).isEmpty();

		this.answer = Optional.of(new Described(SECOND, 2));

		assertThat(this.identity.replacement()).as("the new topic, read already").isEmpty();
		assertThat(this.identity.reading()).contains(SECOND);
		assertThat(this.identity.problem()).isEmpty();
	}

	@Test
	void recordsGoneFromTheSameTopicKeepItsId() {
		reading(FIRST);
		this.identity.readingNext(null);
		assertThat(this.identity.replacement()).isEmpty();

		this.answer = Optional.of(new Described(FIRST, 2));

		assertThat(this.identity.replacement()).isEmpty();
		assertThat(this.identity.reading()).contains(FIRST);
	}

	@Test
	void afterTheProbeFoundTheTopicGoneItsNextAnswerIsTheTopicRead() {
		reading(FIRST);
		this.answer = Optional.empty();
		this.identity.readingNext(null);
		assertThat(this.identity.replacement()).isEmpty();

		this.answer = Optional.of(new Described(SECOND, 2));

		assertThat(this.identity.replacement()).isEmpty();
		assertThat(this.identity.reading()).contains(SECOND);
	}

	private void reading(Uuid topicId) {
		this.answer = Optional.of(new Described(topicId, 1));
		assertThat(this.identity.replacement()).isEmpty();
		assertThat(this.identity.reading()).contains(topicId);
	}

}
