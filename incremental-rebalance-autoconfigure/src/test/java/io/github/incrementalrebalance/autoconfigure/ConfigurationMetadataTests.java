package io.github.incrementalrebalance.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The IDE metadata generated from {@link IncrementalRebalanceProperties} and the endpoint: every property with its
 * description and, where it has one, its default.
 */
class ConfigurationMetadataTests {

	@Test
	void everyPropertyHasADescriptionAndTheDefaultsAreListed() throws IOException {
		Map<String, JsonNode> properties = new HashMap<>();
		try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			assertThat(in).as("generated metadata").isNotNull();
			new ObjectMapper().readTree(in).get("properties").forEach((p) -> properties.put(p.get("name").asString(), p));
		}
		assertThat(properties.get("management.endpoint.rebalance.access").get("defaultValue").asString())
			.isEqualTo("read_only");
		properties.keySet().removeIf((name) -> !name.startsWith("incremental-rebalance."));
		assertThat(properties).containsOnlyKeys("incremental-rebalance.enabled", "incremental-rebalance.mode",
				"incremental-rebalance.scale-down-timeout", "incremental-rebalance.balancing-factor",
				"incremental-rebalance.learner-rebalance", "incremental-rebalance.learner-probe-interval",
				"incremental-rebalance.progress-interval", "incremental-rebalance.instance-id", "incremental-rebalance.control-topic",
				"incremental-rebalance.control-topic-create", "incremental-rebalance.control-topic-timeout",
				"incremental-rebalance.leave-on-close",
				"incremental-rebalance.on-drained", "incremental-rebalance.drain-on-shutdown",
				"incremental-rebalance.placement-policy", "incremental-rebalance.task-weight",
				"incremental-rebalance.task-weight-timeout",
				"incremental-rebalance.leave-acknowledgement-timeout", "incremental-rebalance.leave-unanswered",
				"incremental-rebalance.drain-stall-timeout", "incremental-rebalance.drain-restores-per-member",
				"incremental-rebalance.drain-restores-in-group",
				"incremental-rebalance.warm-readiness",
				"incremental-rebalance.warm-readiness-timeout", "incremental-rebalance.problem-health-status");
		properties.forEach((name, property) -> assertThat(property.path("description").asString()).as(name).isNotBlank());
		assertThat(properties.get("incremental-rebalance.enabled").get("defaultValue").asBoolean()).isTrue();
		assertThat(properties.get("incremental-rebalance.leave-on-close").get("defaultValue").asBoolean()).isTrue();
		assertThat(properties.get("incremental-rebalance.mode").get("defaultValue").asString()).isEqualTo("incremental");
		assertThat(properties.get("incremental-rebalance.balancing-factor").get("defaultValue").asDouble()).isEqualTo(2.0);
		assertThat(properties.get("incremental-rebalance.learner-probe-interval").get("defaultValue").asString())
			.isEqualTo("30s");
		assertThat(properties.get("incremental-rebalance.progress-interval").get("defaultValue").asString())
			.isEqualTo("2s");
		assertThat(properties.get("incremental-rebalance.on-drained").get("defaultValue").asString()).isEqualTo("shutdown");
		assertThat(properties.get("incremental-rebalance.drain-on-shutdown").get("defaultValue").asBoolean()).isFalse();
		assertThat(properties.get("incremental-rebalance.leave-unanswered").get("defaultValue").asString()).isEqualTo("wait");
		assertThat(properties.get("incremental-rebalance.drain-stall-timeout").get("defaultValue").asString()).isEqualTo("5m");
		assertThat(properties.get("incremental-rebalance.control-topic-timeout").get("defaultValue").asString())
			.isEqualTo("10s");
		assertThat(properties.get("incremental-rebalance.task-weight-timeout").get("defaultValue").asString())
			.isEqualTo("5s");
		assertThat(properties.get("incremental-rebalance.problem-health-status").get("defaultValue").asString())
			.isEqualTo("UP");
	}

}
