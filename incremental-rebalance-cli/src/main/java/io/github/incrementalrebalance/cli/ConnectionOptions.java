package io.github.incrementalrebalance.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import io.github.incrementalrebalance.config.LearnerConfig;
import picocli.CommandLine.Option;

/**
 * Where the group is: the options every command shares.
 */
final class ConnectionOptions {

	@Option(names = { "--bootstrap-server", "--bootstrap-servers" }, required = true, paramLabel = "HOSTS",
			description = "The Kafka cluster, as host:port[,host:port] (--bootstrap-servers is accepted too).")
	String bootstrapServers;

	@Option(names = "--application-id", required = true, paramLabel = "APP",
			description = "The Kafka Streams application.id of the group.")
	String applicationId;

	@Option(names = "--command-config", paramLabel = "FILE",
			description = "A properties file of client settings (security), as for Kafka's own tools.")
	Path commandConfig;

	@Option(names = "--control-topic", paramLabel = "TOPIC",
			description = "The control topic, if not <application-id>-rebalance-control.")
	String controlTopic;

	String controlTopic() {
		return (this.controlTopic != null) ? this.controlTopic : LearnerConfig.defaultControlTopic(this.applicationId);
	}

	/**
	 * The clients' config: the command config's settings, then the cluster and a client id of our own.
	 * @throws IOException when the command config cannot be read
	 */
	Map<String, Object> clientConfig() throws IOException {
		Map<String, Object> config = new HashMap<>();
		if (this.commandConfig != null) {
			Properties properties = new Properties();
			try (InputStream in = Files.newInputStream(this.commandConfig)) {
				properties.load(in);
			}
			properties.forEach((key, value) -> config.put(String.valueOf(key), value));
		}
		config.put("bootstrap.servers", this.bootstrapServers);
		config.put("application.id", this.applicationId + "-cli");
		return config;
	}

}
