package io.github.incrementalrebalance.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.incrementalrebalance.config.LearnerConfig;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The IDE metadata generated from {@link IncrementalRebalanceProperties} and the endpoint: every property with its
 * description and, where it has one, its default; and the reference page's tables, which list exactly the properties
 * and the Kafka-style keys there are.
 */
class ConfigurationMetadataTests {

	private static final Path REFERENCE = Path.of("..", "docs", "reference.md");

	@Test
	void everyPropertyHasADescriptionAndTheDefaultsAreListed() throws IOException {
		Map<String, JsonNode> properties = properties();
		assertThat(properties.get("management.endpoint.rebalance.access").get("defaultValue").asString())
			.isEqualTo("read_only");
		properties.keySet().removeIf((name) -> !name.startsWith("incremental-rebalance."));
		properties.values().removeIf((property) -> property.has("deprecation"));
		assertThat(properties).containsOnlyKeys("incremental-rebalance.enabled", "incremental-rebalance.mode",
				"incremental-rebalance.instance-id", "incremental-rebalance.control-topic.name",
				"incremental-rebalance.control-topic.create", "incremental-rebalance.control-topic.timeout",
				"incremental-rebalance.drain.timeout", "incremental-rebalance.drain.on-shutdown",
				"incremental-rebalance.drain.on-drained", "incremental-rebalance.drain.hand-over",
				"incremental-rebalance.drain.stall-timeout", "incremental-rebalance.drain.restores-per-member",
				"incremental-rebalance.drain.restores-in-group", "incremental-rebalance.leave.acknowledgement-timeout",
				"incremental-rebalance.leave.unanswered", "incremental-rebalance.leave.on-close",
				"incremental-rebalance.learners.probe-interval", "incremental-rebalance.learners.progress-interval",
				"incremental-rebalance.readiness.warm", "incremental-rebalance.readiness.timeout",
				"incremental-rebalance.placement.policy", "incremental-rebalance.placement.balancing-factor",
				"incremental-rebalance.placement.task-weight", "incremental-rebalance.placement.task-weight-timeout",
				"incremental-rebalance.health.problem-status", "incremental-rebalance.health.streams-error",
				"incremental-rebalance.fail-on-unknown-keys");
		properties.forEach((name, property) -> assertThat(property.path("description").asString()).as(name).isNotBlank());
		assertThat(properties.get("incremental-rebalance.enabled").get("defaultValue").asBoolean()).isTrue();
		assertThat(properties.get("incremental-rebalance.leave.on-close").get("defaultValue").asBoolean()).isTrue();
		assertThat(properties.get("incremental-rebalance.mode").get("defaultValue").asString()).isEqualTo("incremental");
		assertThat(properties.get("incremental-rebalance.placement.balancing-factor").get("defaultValue").asDouble())
			.isEqualTo(2.0);
		assertThat(properties.get("incremental-rebalance.learners.probe-interval").get("defaultValue").asString())
			.isEqualTo("30s");
		assertThat(properties.get("incremental-rebalance.learners.progress-interval").get("defaultValue").asString())
			.isEqualTo("2s");
		assertThat(properties.get("incremental-rebalance.drain.on-drained").get("defaultValue").asString())
			.isEqualTo("shutdown");
		assertThat(properties.get("incremental-rebalance.drain.on-shutdown").get("defaultValue").asBoolean()).isFalse();
		assertThat(properties.get("incremental-rebalance.leave.unanswered").get("defaultValue").asString())
			.isEqualTo("wait");
		assertThat(properties.get("incremental-rebalance.drain.stall-timeout").get("defaultValue").asString())
			.isEqualTo("5m");
		assertThat(properties.get("incremental-rebalance.control-topic.timeout").get("defaultValue").asString())
			.isEqualTo("10s");
		assertThat(properties.get("incremental-rebalance.placement.task-weight-timeout").get("defaultValue").asString())
			.isEqualTo("5s");
		assertThat(properties.get("incremental-rebalance.health.problem-status").get("defaultValue").asString())
			.isEqualTo("UP");
	}

	/**
	 * The names from before 1.0 are listed as no longer supported, each with the key that replaced it, so that an IDE
	 * and Spring Boot's properties migrator name the replacement; the starter's own check reads the same list.
	 */
	@Test
	void everyNameFromBefore10IsListedWithTheKeyThatReplacedIt() throws IOException {
		Map<String, JsonNode> properties = properties();
		Map<String, String> replaced = new TreeMap<>();
		properties.forEach((name, property) -> {
			if (property.has("deprecation")) {
				assertThat(property.get("deprecation").get("level").asString()).as(name).isEqualTo("error");
				replaced.put(name.substring("incremental-rebalance.".length()),
						property.get("deprecation").get("replacement").asString());
			}
		});
		assertThat(replaced).hasSize(22)
			.containsEntry("drain-on-shutdown", "incremental-rebalance.drain.on-shutdown")
			.containsEntry("scale-down-timeout", "incremental-rebalance.drain.timeout")
			.containsEntry("warm-readiness", "incremental-rebalance.readiness.warm")
			.containsEntry("problem-health-status", "incremental-rebalance.health.problem-status");
		assertThat(replaced.values()).as("every replacement is a property of today")
			.allSatisfy((replacement) -> assertThat(properties.containsKey(replacement)
					&& !properties.get(replacement).has("deprecation")).as(replacement).isTrue());
	}

	@Test
	void theReferenceListsEveryPropertyAndNoOther() throws IOException {
		Map<String, JsonNode> all = properties();
		Set<String> properties = new TreeSet<>(all.keySet());
		properties.removeIf((name) -> !name.startsWith("incremental-rebalance.") || all.get(name).has("deprecation"));
		assertThat(tableKeys("## Spring Boot", "incremental-rebalance.")).as("the properties in docs/reference.md")
			.isEqualTo(properties);
	}

	@Test
	void theReferenceListsEveryKafkaStyleKeyAndNoOther() throws IOException {
		assertThat(tableKeys("## Kafka-style keys", "incremental.rebalance."))
			.as("the Kafka-style keys in docs/reference.md")
			.isEqualTo(new TreeSet<>(LearnerConfig.configDef().names()));
	}

	private Map<String, JsonNode> properties() throws IOException {
		Map<String, JsonNode> properties = new HashMap<>();
		try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			assertThat(in).as("generated metadata").isNotNull();
			new ObjectMapper().readTree(in).get("properties").forEach((p) -> properties.put(p.get("name").asString(), p));
		}
		return properties;
	}

	/** The names that rows of the reference's tables start with, in one section, that start with a prefix. */
	private static Set<String> tableKeys(String heading, String prefix) throws IOException {
		String page = Files.readString(REFERENCE);
		int start = page.indexOf("\n" + heading);
		assertThat(start).as("a section '%s' in docs/reference.md", heading).isNotNegative();
		int end = page.indexOf("\n## ", start + 1);
		Set<String> keys = new TreeSet<>();
		Matcher row = Pattern.compile("(?m)^\\| `(" + Pattern.quote(prefix) + "[^`]+)` \\|")
			.matcher(page.substring(start, (end < 0) ? page.length() : end));
		while (row.find()) {
			keys.add(row.group(1));
		}
		return keys;
	}

}
