package io.github.incrementalrebalance.member;

import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaClientSupplier;

/**
 * Kafka's own clients, made from the config Kafka Streams hands over, reading and writing bytes: what Kafka Streams
 * makes when it is given no supplier. Kafka's class for this lives in an internal package that may move in any
 * release, so the member's supplier builds the clients through their public constructors instead. Stateless; any
 * thread.
 */
public final class PlainKafkaClients implements KafkaClientSupplier {

	@Override
	public Admin getAdmin(Map<String, Object> config) {
		return Admin.create(config);
	}

	@Override
	public Producer<byte[], byte[]> getProducer(Map<String, Object> config) {
		return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
	}

	@Override
	public Consumer<byte[], byte[]> getConsumer(Map<String, Object> config) {
		return byteConsumer(config);
	}

	@Override
	public Consumer<byte[], byte[]> getRestoreConsumer(Map<String, Object> config) {
		return byteConsumer(config);
	}

	@Override
	public Consumer<byte[], byte[]> getGlobalConsumer(Map<String, Object> config) {
		return byteConsumer(config);
	}

	private static Consumer<byte[], byte[]> byteConsumer(Map<String, Object> config) {
		return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
	}

}
