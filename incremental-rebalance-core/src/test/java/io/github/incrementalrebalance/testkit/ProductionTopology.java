package io.github.incrementalrebalance.testkit;

import java.time.Duration;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.GlobalKTable;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * A topology shaped like a production application's, for the tests that claim what production sees: two
 * sub-topologies joined by a repartition, a stream-table join, a GlobalKTable, a windowed and a session-windowed
 * aggregation, an in-memory store and a store with logging disabled, beside the per-key count that the tests check
 * exactly.
 * <p>
 * Sub-topology 0 reads the input (and the co-partitioned customers table): per key, a count ({@link #COUNTS},
 * written to the output and checked exactly), a count per minute, a count per session, the last order (in memory), a
 * count of what this instance saw (logging disabled: lost on a move, by design), and the orders enriched with their
 * customer and their region (a GlobalKTable). Sub-topology 1 counts orders per region behind a repartition, written
 * to the region-counts topic and checked exactly too. Markers are reported to a {@link GapMeter} in sub-topology 0.
 */
public final class ProductionTopology {

	/** The per-key count, queried by interactive queries. */
	public static final String COUNTS = "counts";

	/** Regions orders are counted in behind the repartition. */
	static final int REGIONS = 8;

	private ProductionTopology() {
	}

	/**
	 * The region an order key belongs to: markers have a region of their own.
	 * @param key the order's key
	 * @return the region
	 */
	public static String regionOf(String key) {
		return TrackingProducer.isMarker(key) ? "region-markers" : "region-" + Math.floorMod(key.hashCode(), REGIONS);
	}

	/**
	 * Build the topology of one instance.
	 * @param topics the application's topics
	 * @param instance the instance's name, reported with markers
	 * @param gapMeter where markers are reported
	 * @return the topology
	 */
	public static Topology build(Topics topics, String instance, GapMeter gapMeter) {
		StreamsBuilder builder = new StreamsBuilder();
		KStream<String, String> orders = builder
			.stream(topics.input(), Consumed.with(Serdes.String(), Serdes.String()))
			.processValues(() -> new CountingTopology.MarkerProbe(instance, gapMeter, new SlowCalls()));
		orders.groupByKey()
			.count(Materialized.<String, Long>as(Stores.persistentKeyValueStore(COUNTS))
				.withKeySerde(Serdes.String())
				.withValueSerde(Serdes.Long()))
			.toStream()
			.to(topics.output(), Produced.with(Serdes.String(), Serdes.Long()));
		orders.groupByKey()
			.windowedBy(TimeWindows.ofSizeWithNoGrace(Duration.ofMinutes(1)))
			.count(Materialized.as("per-minute"));
		orders.groupByKey()
			.windowedBy(SessionWindows.ofInactivityGapWithNoGrace(Duration.ofMinutes(1)))
			.count(Materialized.as("sessions"));
		orders.groupByKey()
			.reduce((previous, next) -> next,
					Materialized.<String, String>as(Stores.inMemoryKeyValueStore("last-order"))
						.withKeySerde(Serdes.String())
						.withValueSerde(Serdes.String()));
		builder.addStateStore(Stores
			.keyValueStoreBuilder(Stores.persistentKeyValueStore(SeenHere.STORE), Serdes.String(), Serdes.Long())
			.withLoggingDisabled());
		orders.processValues(SeenHere::new, SeenHere.STORE);
		KTable<String, String> customers = builder.table(topics.customers(),
				Consumed.with(Serdes.String(), Serdes.String()), Materialized.as("customers"));
		GlobalKTable<String, String> regions = builder.globalTable(topics.regions(),
				Consumed.with(Serdes.String(), Serdes.String()), Materialized.as("regions"));
		orders.leftJoin(customers, (order, customer) -> order + "|" + customer)
			.leftJoin(regions, (key, value) -> regionOf(key), (value, region) -> value + "|" + region)
			.to(topics.enriched(), Produced.with(Serdes.String(), Serdes.String()));
		orders.groupBy((key, value) -> regionOf(key), Grouped.with("by-region", Serdes.String(), Serdes.String()))
			.count(Materialized.as("region-counts"))
			.toStream()
			.to(topics.regionCounts(), Produced.with(Serdes.String(), Serdes.Long()));
		return builder.build();
	}

	/**
	 * The topics of one application of this topology, named after its application id.
	 * @param applicationId the application id
	 */
	public record Topics(String applicationId) {

		public String input() {
			return this.applicationId + "-input";
		}

		public String customers() {
			return this.applicationId + "-customers";
		}

		public String regions() {
			return this.applicationId + "-regions";
		}

		public String output() {
			return this.applicationId + "-output";
		}

		public String regionCounts() {
			return this.applicationId + "-region-counts";
		}

		public String enriched() {
			return this.applicationId + "-enriched";
		}

	}

	/**
	 * Counts what this instance saw of each key in a store without a changelog: restored by nothing, lost on a move.
	 */
	private static final class SeenHere implements FixedKeyProcessor<String, String, String> {

		static final String STORE = "seen-here";

		private KeyValueStore<String, Long> seen;

		@Override
		public void init(FixedKeyProcessorContext<String, String> context) {
			this.seen = context.getStateStore(STORE);
		}

		@Override
		public void process(FixedKeyRecord<String, String> record) {
			Long count = this.seen.get(record.key());
			this.seen.put(record.key(), (count != null) ? count + 1 : 1);
		}

	}

}
