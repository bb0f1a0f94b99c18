package io.github.incrementalrebalance.autoconfigure;

import io.github.incrementalrebalance.testkit.KafkaPublicApi;
import org.junit.jupiter.api.Test;

/**
 * The auto-configuration uses Kafka's public API only.
 */
class KafkaPublicApiTests {

	@Test
	void autoConfigurationUsesOnlyKafkasPublicApi() {
		KafkaPublicApi.checkMainClassesOf("io.github.incrementalrebalance.autoconfigure");
	}

}
