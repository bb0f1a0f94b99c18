package io.github.incrementalrebalance.testkit;

import java.time.Instant;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.state.Stores;

/**
 * The test application: counts records per key in a persistent store (one stateful task per input partition) and
 * writes every new count to an output topic, so the counts can be checked exactly; marker records are reported to a
 * {@link GapMeter} as they pass.
 */
public final class CountingTopology {

	/** The state store, changelogged as {@code <application.id>-counts-changelog}. */
	public static final String STORE = "counts";

	private CountingTopology() {
	}

	/**
	 * Build the topology of one instance.
	 * @param input the input topic
	 * @param output the topic receiving each key's latest count
	 * @param instance the instance's name, reported with markers
	 * @param gapMeter where markers are reported
	 * @return the topology
	 */
	public static Topology build(String input, String output, String instance, GapMeter gapMeter) {
		return build(input, output, instance, gapMeter, new SlowCalls());
	}

	/**
	 * Build the topology of one instance whose processing can be held up.
	 * @param input the input topic
	 * @param output the topic receiving each key's latest count
	 * @param instance the instance's name, reported with markers
	 * @param gapMeter where markers are reported
	 * @param slowCalls the slow calls armed for the instances
	 * @return the topology
	 */
	public static Topology build(String input, String output, String instance, GapMeter gapMeter,
			SlowCalls slowCalls) {
		StreamsBuilder builder = new StreamsBuilder();
		addTo(builder, input, output, instance, gapMeter, slowCalls);
		return builder.build();
	}

	/**
	 * Build the topology of one instance with a second, stateless sub-topology: it reads the output topic and writes
	 * each record on to another topic, so that a record reaches the end only through both sub-topologies.
	 * @param input the input topic
	 * @param output the topic receiving each key's latest count
	 * @param forward the topic the stateless sub-topology writes to
	 * @param instance the instance's name, reported with markers
	 * @param gapMeter where markers are reported
	 * @return the topology
	 */
	public static Topology buildWithStatelessStage(String input, String output, String forward, String instance,
			GapMeter gapMeter) {
		return buildWithStatelessStage(input, output, forward, instance, gapMeter, new SlowCalls());
	}

	/**
	 * As {@link #buildWithStatelessStage(String, String, String, String, GapMeter)}, with processing that can be held
	 * up.
	 * @param input the input topic
	 * @param output the topic receiving each key's latest count
	 * @param forward the topic the stateless sub-topology writes to
	 * @param instance the instance's name, reported with markers
	 * @param gapMeter where markers are reported
	 * @param slowCalls the slow calls armed for the instances
	 * @return the topology
	 */
	public static Topology buildWithStatelessStage(String input, String output, String forward, String instance,
			GapMeter gapMeter, SlowCalls slowCalls) {
		StreamsBuilder builder = new StreamsBuilder();
		addTo(builder, input, output, instance, gapMeter, slowCalls);
		builder.stream(output, Consumed.with(Serdes.String(), Serdes.Long()))
			.to(forward, Produced.with(Serdes.String(), Serdes.Long()));
		return builder.build();
	}

	/**
	 * Add the counting to a builder that builds the topology itself (a Spring {@code StreamsBuilderFactoryBean}).
	 * @param builder the builder
	 * @param input the input topic
	 * @param output the topic receiving each key's latest count
	 * @param instance the instance's name, reported with markers
	 * @param gapMeter where markers are reported
	 * @return the input stream
	 */
	public static KStream<String, String> addTo(StreamsBuilder builder, String input, String output, String instance,
			GapMeter gapMeter) {
		return addTo(builder, input, output, instance, gapMeter, new SlowCalls());
	}

	/**
	 * The counting of an input stream made elsewhere (a Spring Cloud Stream function), without its output topic.
	 * @param input the input stream
	 * @param instance the instance's name, reported with markers
	 * @param gapMeter where markers are reported
	 * @return every key's latest count
	 */
	public static KStream<String, Long> countsOf(KStream<String, String> input, String instance, GapMeter gapMeter) {
		return countsOf(input, instance, gapMeter, new SlowCalls());
	}

	private static KStream<String, Long> countsOf(KStream<String, String> input, String instance, GapMeter gapMeter,
			SlowCalls slowCalls) {
		return input.processValues(() -> new MarkerProbe(instance, gapMeter, slowCalls))
			.groupByKey()
			.count(Materialized.<String, Long>as(Stores.persistentKeyValueStore(STORE))
				.withKeySerde(Serdes.String())
				.withValueSerde(Serdes.Long()))
			.toStream();
	}

	private static KStream<String, String> addTo(StreamsBuilder builder, String input, String output,
			String instance, GapMeter gapMeter, SlowCalls slowCalls) {
		KStream<String, String> stream = builder.stream(input, Consumed.with(Serdes.String(), Serdes.String()));
		countsOf(stream, instance, gapMeter, slowCalls).to(output, Produced.with(Serdes.String(), Serdes.Long()));
		return stream;
	}

	static final class MarkerProbe implements FixedKeyProcessor<String, String, String> {

		private final String instance;

		private final GapMeter gapMeter;

		private final SlowCalls slowCalls;

		private FixedKeyProcessorContext<String, String> context;

		MarkerProbe(String instance, GapMeter gapMeter, SlowCalls slowCalls) {
			this.instance = instance;
			this.gapMeter = gapMeter;
			this.slowCalls = slowCalls;
		}

		@Override
		public void init(FixedKeyProcessorContext<String, String> context) {
			this.context = context;
		}

		@Override
		public void process(FixedKeyRecord<String, String> record) {
			this.slowCalls.call(this.instance);
			if (TrackingProducer.isMarker(record.key())) {
				this.gapMeter.markerProcessed(this.context.taskId(), this.instance,
						Instant.ofEpochMilli(Long.parseLong(record.value())));
			}
			this.context.forward(record);
		}

	}

}
