package io.github.incrementalrebalance.control;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.incrementalrebalance.planner.LeaveRequest;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The reader after a read fault, on Kafka's {@link MockConsumer}s handed to it one per attempt: it never presents the
 * topic's history as current. It resumes after the last record it applied; when those records are gone it reads the
 * topic again into a new view, and is not caught up until it has.
 */
class ControlTopicReaderTests {

	private static final String TOPIC = "app-rebalance-control";

	private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final Deque<MockConsumer<byte[], byte[]>> consumers = new ArrayDeque<>();

	private final List<MockConsumer<byte[], byte[]>> handedOut = new CopyOnWriteArrayList<>();

	/** How many of the next consumers cannot be made. */
	private final AtomicInteger unmade = new AtomicInteger();

	private final LeaveRecord leave = LeaveRecord.request("a", "a1", Instant.now().truncatedTo(ChronoUnit.MILLIS),
			Optional.empty(), "cli");

	@Test
	void afterAReadFaultACancelledLeaveIsNeverPendingAgain() {
		MockConsumer<byte[], byte[]> first = consumer(0, 2);
		first.schedulePollTask(() -> {
			first.addRecord(record(0, this.leave));
			first.addRecord(record(1, this.leave.cancel("cli")));
		});
		MockConsumer<byte[], byte[]> second = consumer(0, 3);
		RejoinRequest news = new RejoinRequest("b", "b1", 7, "after the fault", Instant.now().truncatedTo(ChronoUnit.MILLIS));
		List<List<LeaveRequest>> seenWhileReadingOn = new CopyOnWriteArrayList<>();
		try (ControlTopicReader reader = reader()) {
			// the second consumer's fetches bring the topic one record per poll, as a slow link would
			second.schedulePollTask(() -> second.addRecord(record(0, this.leave)));
			second.schedulePollTask(() -> {
				seenWhileReadingOn.add(reader.leaveRequests());
				second.addRecord(record(1, this.leave.cancel("cli")));
			});
			second.schedulePollTask(() -> {
				seenWhileReadingOn.add(reader.leaveRequests());
				second.addRecord(record(2, news));
			});
			List<ControlRecord> heard = new CopyOnWriteArrayList<>();
			reader.addListener(heard::add);
			reader.start();
			assertThat(reader.awaitCaughtUp(TIMEOUT)).isTrue();
			assertThat(reader.leaveRequests()).isEmpty();

			first.setPollException(new KafkaException("the link to the broker broke"));
			// a record is applied to the view before listeners hear of it: wait for both
			await("the news read with a second consumer, and heard").atMost(TIMEOUT)
				.until(() -> reader.view().rejoinRequests().containsKey("b") && !heard.isEmpty());

			assertThat(seenWhileReadingOn).as("the leave's cancel is never undone by the history read again")
				.hasSize(2)
				.allSatisfy((requests) -> assertThat(requests).isEmpty());
			assertThat(reader.leaveRecord("a")).hasValueSatisfying((record) -> assertThat(record.cancelled()).isTrue());
			assertThat(heard).as("the history is not news; what came after the fault is").containsExactly(news);
			assertThat(reader.unavailable()).isEmpty();
		}
	}

	@Test
	void whenTheRecordsToResumeFromAreGoneTheReaderReadsAgainAndIsNotCaughtUpUntilItHas() {
		MockConsumer<byte[], byte[]> first = consumer(0, 1);
		first.schedulePollTask(() -> first.addRecord(record(0, this.leave)));
		// meanwhile the records from offset 1 on were deleted (retention, or the topic made again): it begins at 5
		LeaveRecord other = LeaveRecord.request("c", "c1", Instant.now().truncatedTo(ChronoUnit.MILLIS),
				Optional.empty(), "cli");
		MockConsumer<byte[], byte[]> resuming = consumer(5, 6);
		resuming.schedulePollTask(() -> resuming.addRecord(record(5, other)));
		MockConsumer<byte[], byte[]> again = consumer(5, 6);
		List<Optional<String>> unavailableWhileReadingAgain = new CopyOnWriteArrayList<>();
		List<Optional<LeaveRecord>> answeredWhileReadingAgain = new CopyOnWriteArrayList<>();
		try (ControlTopicReader reader = reader()) {
			again.schedulePollTask(() -> {
				unavailableWhileReadingAgain.add(reader.unavailable());
				answeredWhileReadingAgain.add(reader.leaveRecord("a"));
				again.addRecord(record(5, other));
			});
			reader.start();
			assertThat(reader.awaitCaughtUp(TIMEOUT)).isTrue();
			assertThat(reader.leaveRecord("a")).isPresent();

			first.setPollException(new KafkaException("the link to the broker broke"));
			await("the new view in place").atMost(TIMEOUT).until(() -> reader.leaveRecord("c").isPresent());

			assertThat(unavailableWhileReadingAgain).as("not caught up while reading again").singleElement()
				.satisfies((why) -> assertThat(why).isPresent());
			assertThat(answeredWhileReadingAgain).as("the last view answers meanwhile").singleElement()
				.satisfies((record) -> assertThat(record).isPresent());
			assertThat(reader.leaveRecord("a")).as("gone from the topic, gone from the view").isEmpty();
			assertThat(reader.awaitCaughtUp(TIMEOUT)).isTrue();
			assertThat(reader.unavailable()).isEmpty();
			assertThat(this.handedOut).containsExactly(first, resuming, again);
		}
	}

	/**
	 * A consumer that cannot be made (the bootstrap address does not resolve for a while, a keystore is being
	 * replaced) does not end the reader: it says why, backs off, and reads on once one can be made.
	 */
	@Test
	void aConsumerThatCannotBeMadeIsTriedAgainAndTheReaderReadsOn() {
		MockConsumer<byte[], byte[]> first = consumer(0, 1);
		first.schedulePollTask(() -> first.addRecord(record(0, this.leave)));
		MockConsumer<byte[], byte[]> later = consumer(0, 2);
		RejoinRequest news = new RejoinRequest("b", "b1", 7, "after the fault",
				Instant.now().truncatedTo(ChronoUnit.MILLIS));
		later.schedulePollTask(() -> later.addRecord(record(0, this.leave)));
		later.schedulePollTask(() -> later.addRecord(record(1, news)));
		try (ControlTopicReader reader = reader()) {
			reader.start();
			assertThat(reader.awaitCaughtUp(TIMEOUT)).isTrue();

			this.unmade.set(2);
			first.setPollException(new KafkaException("the link to the broker broke"));
			await("the reader says why it cannot read").atMost(TIMEOUT)
				.until(() -> reader.problem().filter((why) -> why.contains("No resolvable bootstrap urls")).isPresent());

			await("the news read once a consumer could be made").atMost(TIMEOUT)
				.until(() -> reader.view().rejoinRequests().containsKey("b"));
			assertThat(this.unmade).hasValue(0);
			assertThat(reader.problem()).isEmpty();
		}
	}

	private ControlTopicReader reader() {
		return new ControlTopicReader(this::nextConsumer, () -> {
			throw new IllegalStateException("no cluster here: the probe is not part of this test");
		}, TOPIC, Duration.ofHours(1), Duration.ofSeconds(5));
	}

	private Consumer<byte[], byte[]> nextConsumer() {
		if (this.unmade.getAndUpdate((left) -> Math.max(0, left - 1)) > 0) {
			throw new KafkaException("Failed to construct kafka consumer",
					new ConfigException("No resolvable bootstrap urls given in bootstrap.servers"));
		}
		MockConsumer<byte[], byte[]> next = this.consumers.removeFirst();
		this.handedOut.add(next);
		return next;
	}

	/**
	 * A consumer of a topic that begins and ends at the offsets given, handed to the reader after the ones made before
	 * it; its records are added by poll tasks, one per poll.
	 */
	private MockConsumer<byte[], byte[]> consumer(long beginning, long end) {
		MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("none");
		consumer.updateBeginningOffsets(Map.of(PARTITION, beginning));
		consumer.updateEndOffsets(Map.of(PARTITION, end));
		this.consumers.add(consumer);
		return consumer;
	}

	private static ConsumerRecord<byte[], byte[]> record(long offset, ControlRecord value) {
		return new ConsumerRecord<>(TOPIC, 0, offset, ControlCodec.encodeKey(value.key()),
				ControlCodec.encodeValue(value));
	}

}
