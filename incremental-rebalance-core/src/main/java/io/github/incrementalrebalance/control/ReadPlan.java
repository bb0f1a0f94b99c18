package io.github.incrementalrebalance.control;

import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.json.JsonMapper;

/**
 * A plan record as the reader read it: its generation at once, the plan itself only when first asked for. Every member
 * reads every member's plan record, and needs only its own (the leader, the endpoint and the command line read them
 * all): decoded as read, a group of 300 spends 300 times 300 decodes per rebalance, a start over a long history one per
 * record. The reader's thread makes it; any thread may ask for the plan.
 */
final class ReadPlan {

	private static final Logger logger = LoggerFactory.getLogger(ReadPlan.class);

	private final String key;

	private final byte[] value;

	private final int generation;

	private volatile Optional<PlanRecord> decoded;

	private ReadPlan(String key, byte[] value, int generation) {
		this.key = key;
		this.value = value;
		this.generation = generation;
	}

	/**
	 * Read a plan record's generation, leaving the rest for later.
	 * @param key the record's key
	 * @param value its value, not a tombstone
	 * @return the record as read
	 * @throws MalformedControlRecordException when the value is not a JSON object with a version this reader reads
	 * and a generation
	 */
	static ReadPlan peek(String key, byte[] value) {
		Integer version = null;
		Integer generation = null;
		try (JsonParser parser = JsonMapper.shared().createParser(value)) {
			if (parser.nextToken() != JsonToken.START_OBJECT) {
				throw new MalformedControlRecordException("value of '" + key + "' is not a JSON object");
			}
			while ((version == null || generation == null) && parser.nextToken() == JsonToken.PROPERTY_NAME) {
				String field = parser.currentName();
				JsonToken token = parser.nextToken();
				if ("v".equals(field) && token == JsonToken.VALUE_NUMBER_INT) {
					version = parser.getIntValue();
				}
				else if ("generation".equals(field) && token == JsonToken.VALUE_NUMBER_INT) {
					generation = parser.getIntValue();
				}
				else {
					parser.skipChildren();
				}
			}
		}
		catch (JacksonException ex) {
			throw new MalformedControlRecordException("value of '" + key + "' is not JSON: " + ex.getMessage());
		}
		if (version == null) {
			throw new MalformedControlRecordException("value of '" + key + "' needs a number field 'v'");
		}
		ControlCodec.checkVersion(key, version);
		if (generation == null) {
			throw new MalformedControlRecordException("value of '" + key + "' needs a number field 'generation'");
		}
		return new ReadPlan(key, value, generation);
	}

	int generation() {
		return this.generation;
	}

	/**
	 * The plan, decoded once; a value that does not decode is skipped with a WARN, as the reader skips any malformed
	 * record.
	 * @return the plan, empty when it is malformed
	 */
	Optional<PlanRecord> record() {
		Optional<PlanRecord> read = this.decoded;
		if (read == null) {
			try {
				read = ControlCodec.decode(this.key, this.value).map(PlanRecord.class::cast);
			}
			catch (MalformedControlRecordException ex) {
				logger.warn("Skipping control record {}: {}", this.key, ex.getMessage());
				read = Optional.empty();
			}
			this.decoded = read;
		}
		return read;
	}

}
