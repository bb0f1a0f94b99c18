package io.github.incrementalrebalance.member;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import io.github.incrementalrebalance.testkit.KafkaPublicApi;
import org.apache.kafka.streams.processor.internals.DefaultKafkaClientSupplier;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The core's main classes use Kafka's public API only; the rule finds a class that does not.
 */
class KafkaPublicApiTests {

	@Test
	void coreUsesOnlyKafkasPublicApi() {
		KafkaPublicApi.checkMainClassesOf("io.github.incrementalrebalance");
	}

	@Test
	void aClassUsingAnInternalKafkaClassBreaksTheRule() {
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> KafkaPublicApi.rule().check(new ClassFileImporter().importClasses(UsesInternals.class)))
			.withMessageContaining(UsesInternals.class.getName())
			.withMessageContaining("org.apache.kafka.streams.processor.internals.DefaultKafkaClientSupplier");
	}

	static final class UsesInternals {

		Object clients() {
			return new DefaultKafkaClientSupplier();
		}

	}

}
