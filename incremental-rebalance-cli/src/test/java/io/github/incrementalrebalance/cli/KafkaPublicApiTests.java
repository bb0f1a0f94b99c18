package io.github.incrementalrebalance.cli;

import io.github.incrementalrebalance.testkit.KafkaPublicApi;
import org.junit.jupiter.api.Test;

/**
 * The command line uses Kafka's public API only.
 */
class KafkaPublicApiTests {

	@Test
	void commandLineUsesOnlyKafkasPublicApi() {
		KafkaPublicApi.checkMainClassesOf("io.github.incrementalrebalance.cli");
	}

}
