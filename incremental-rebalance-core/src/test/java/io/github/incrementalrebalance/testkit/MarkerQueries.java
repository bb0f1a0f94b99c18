package io.github.incrementalrebalance.testkit;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Interactive queries as an application serves them, on a thread of their own: for each partition's marker key, ask
 * Kafka Streams which instance is the key's active host ({@code queryMetadataForKey}), then ask that instance's
 * {@link ProductionTopology#COUNTS} store for the key's count, without stale stores. Instances are told apart by
 * their {@code application.server}, {@code <name>:1}, which {@link #applicationServer(String)} gives.
 */
public final class MarkerQueries implements AutoCloseable {

	private static final Duration PAUSE = Duration.ofMillis(50);

	private final Map<String, StreamsInstance> instances = new ConcurrentHashMap<>();

	private final Collection<Integer> partitions;

	private final List<Answer> answers = new CopyOnWriteArrayList<>();

	private final Map<Integer, Set<String>> standbyHosts = new ConcurrentHashMap<>();

	private volatile boolean stopped;

	private Thread thread;

	/**
	 * @param partitions the partitions whose marker keys are queried
	 */
	public MarkerQueries(Collection<Integer> partitions) {
		this.partitions = List.copyOf(partitions);
	}

	/**
	 * The {@code application.server} of an instance, by which its queries are routed.
	 * @param name the instance's name
	 * @return {@code <name>:1}
	 */
	public static String applicationServer(String name) {
		return name + ":1";
	}

	/**
	 * Route queries to an instance too, and ask it for metadata while it runs.
	 * @param instance an instance started with {@link #applicationServer(String)}
	 * @return this
	 */
	public MarkerQueries serve(StreamsInstance instance) {
		this.instances.put(instance.name(), instance);
		return this;
	}

	/**
	 * Start querying, every 50 ms.
	 * @return this
	 */
	public MarkerQueries start() {
		this.thread = new Thread(() -> {
			while (!this.stopped) {
				this.partitions.forEach(this::query);
				try {
					Thread.sleep(PAUSE.toMillis());
				}
				catch (InterruptedException ex) {
					return;
				}
			}
		}, "marker-queries");
		this.thread.setDaemon(true);
		this.thread.start();
		return this;
	}

	private void query(int partition) {
		String key = "marker-" + partition;
		Instant at = Instant.now();
		Optional<StreamsInstance> router = this.instances.values().stream()
			.filter((instance) -> instance.kafkaStreams().state() == KafkaStreams.State.RUNNING)
			.findFirst();
		if (router.isEmpty()) {
			this.answers.add(new Answer(at, partition, null, null));
			return;
		}
		try {
			// markers are sent to their partition, not to the one their key hashes to
			StreamPartitioner<String, Object> toItsPartition = (topic, k, value, count) -> Optional
				.of(Set.of(partition));
			KeyQueryMetadata metadata = router.get().kafkaStreams().queryMetadataForKey(ProductionTopology.COUNTS,
					key, toItsPartition);
			if (metadata == null || metadata.equals(KeyQueryMetadata.NOT_AVAILABLE)) {
				this.answers.add(new Answer(at, partition, null, null));
				return;
			}
			metadata.standbyHosts().forEach((host) -> this.standbyHosts
				.computeIfAbsent(partition, (p) -> ConcurrentHashMap.newKeySet()).add(host.host()));
			String host = metadata.activeHost().host();
			StreamsInstance active = this.instances.get(host);
			ReadOnlyKeyValueStore<String, Long> store = active.kafkaStreams().store(StoreQueryParameters
				.fromNameAndType(ProductionTopology.COUNTS, QueryableStoreTypes.<String, Long>keyValueStore())
				.withPartition(partition));
			this.answers.add(new Answer(at, partition, host, store.get(key)));
		}
		catch (RuntimeException ex) {
			// not queryable right now (a rebalance, a store migrating, a closed instance): an unanswered query
			this.answers.add(new Answer(at, partition, null, null));
		}
	}

	/**
	 * The answers so far, oldest first; an unanswered query has no host and no count.
	 * @return the answers
	 */
	public List<Answer> answers() {
		return new ArrayList<>(this.answers);
	}

	/**
	 * The hosts ever named as a standby of a partition's key.
	 * @param partition the partition
	 * @return the instances' names
	 */
	public Set<String> standbyHostsOf(int partition) {
		return Set.copyOf(this.standbyHosts.getOrDefault(partition, Set.of()));
	}

	/**
	 * Answers whose count was lower than one given for the same key before: a query that went back in time.
	 * @return the answers, empty when every key's count only grew
	 */
	public List<Answer> wentBack() {
		List<Answer> back = new ArrayList<>();
		Map<Integer, List<Answer>> byPartition = answers().stream().filter(Answer::answered)
			.collect(Collectors.groupingBy(Answer::partition));
		byPartition.values().forEach((list) -> {
			long highest = Long.MIN_VALUE;
			for (Answer answer : list) {
				if (answer.count() < highest) {
					back.add(answer);
				}
				highest = Math.max(highest, answer.count());
			}
		});
		return back;
	}

	/**
	 * The longest time one of the partitions' keys went without an answer in a window.
	 * @param from start of the window
	 * @param to end of the window
	 * @return the longest gap between answers, counting the window's edges
	 */
	public Duration longestUnanswered(Instant from, Instant to) {
		Duration longest = Duration.ZERO;
		for (int partition : this.partitions) {
			Instant previous = from;
			for (Answer answer : answers()) {
				if (answer.partition() != partition || !answer.answered() || answer.at().isBefore(from)
						|| answer.at().isAfter(to)) {
					continue;
				}
				Duration gap = Duration.between(previous, answer.at());
				longest = (gap.compareTo(longest) > 0) ? gap : longest;
				previous = answer.at();
			}
			Duration tail = Duration.between(previous, to);
			longest = (tail.compareTo(longest) > 0) ? tail : longest;
		}
		return longest;
	}

	@Override
	public void close() {
		this.stopped = true;
		if (this.thread != null) {
			try {
				this.thread.join(Duration.ofSeconds(10).toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * One query.
	 * @param at when it was asked
	 * @param partition the partition of its key
	 * @param host the active host that answered, null when unanswered
	 * @param count the count it gave, null when unanswered (or the key had none)
	 */
	public record Answer(Instant at, int partition, String host, Long count) {

		public boolean answered() {
			return this.host != null && this.count != null;
		}

	}

}
