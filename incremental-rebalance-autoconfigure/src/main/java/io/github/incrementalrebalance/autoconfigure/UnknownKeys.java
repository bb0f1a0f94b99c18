package io.github.incrementalrebalance.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * The keys under {@code incremental-rebalance.} an application sets that the starter does not know: a misspelling, or
 * a name from before 1.0. Spring binds what it knows and ignores the rest without a word, so such a key silently
 * turns off what it was meant to turn on (a drain on shutdown, and every rollout moves its tasks cold). The known keys
 * and the old names' replacements are read from the starter's configuration metadata, the list IDEs and Spring Boot's
 * properties migrator read.
 */
final class UnknownKeys {

	static final String PREFIX = "incremental-rebalance";

	private static final ConfigurationPropertyName ROOT = ConfigurationPropertyName.of(PREFIX);

	private static final String METADATA = "META-INF/spring-configuration-metadata.json";

	/** The known keys. */
	private final List<String> known;

	/** Names from before 1.0, with the key that replaced each. */
	private final Map<String, String> renamed;

	/** Every key and old name, as a name Spring Boot binds from a file or the command line. */
	private final Map<ConfigurationPropertyName, String> byName = new LinkedHashMap<>();

	/** Every key and old name, as the environment variables Spring Boot binds to it. */
	private final Map<String, String> byVariable = new LinkedHashMap<>();

	private UnknownKeys(List<String> known, Map<String, String> renamed) {
		this.known = known;
		this.renamed = renamed;
		Stream.concat(known.stream(), renamed.keySet().stream()).forEach((key) -> {
			this.byName.put(ConfigurationPropertyName.of(key), key);
			// Spring Boot's mapping of a name to variables: dashes dropped, or (the legacy form) made underscores
			this.byVariable.put(key.replace("-", "").replace('.', '_').toUpperCase(Locale.ROOT), key);
			this.byVariable.put(key.replace('-', '_').replace('.', '_').toUpperCase(Locale.ROOT), key);
		});
	}

	/**
	 * The keys the starter's configuration metadata lists on the class path.
	 * @param classLoader where the metadata is looked for
	 * @return the check
	 */
	static UnknownKeys fromMetadata(ClassLoader classLoader) {
		List<String> known = new ArrayList<>();
		Map<String, String> renamed = new LinkedHashMap<>();
		JsonMapper json = JsonMapper.builder().build();
		try {
			Enumeration<URL> files = classLoader.getResources(METADATA);
			for (URL file : Collections.list(files)) {
				try (InputStream in = file.openStream()) {
					for (JsonNode property : json.readTree(in).path("properties")) {
						String name = property.path("name").asString();
						if (!name.startsWith(PREFIX + ".")) {
							continue;
						}
						JsonNode deprecation = property.path("deprecation");
						if (deprecation.isMissingNode()) {
							known.add(name);
						}
						else {
							renamed.put(name, deprecation.path("replacement").asString());
						}
					}
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read " + METADATA, ex);
		}
		return new UnknownKeys(known, renamed);
	}

	/**
	 * The keys under {@code incremental-rebalance.} the environment sets that the starter does not know, each once, in
	 * the order of the environment's property sources.
	 * @param environment the application's environment
	 * @return the unknown keys
	 */
	List<Unknown> in(ConfigurableEnvironment environment) {
		Map<String, Unknown> found = new LinkedHashMap<>();
		for (PropertySource<?> source : environment.getPropertySources()) {
			if (!(source instanceof EnumerablePropertySource<?> enumerable)
					|| KubernetesDefaults.PROPERTY_SOURCE_NAME.equals(source.getName())) {
				continue;
			}
			boolean variables = source instanceof SystemEnvironmentPropertySource;
			for (String name : enumerable.getPropertyNames()) {
				Optional<String> key = variables ? variable(name) : name(name);
				if (key.isPresent() && !this.known.contains(key.get())) {
					found.putIfAbsent(uniform(name), unknown(name, source.getName(), key.get()));
				}
			}
		}
		return List.copyOf(found.values());
	}

	/**
	 * @return empty for a name not under {@code incremental-rebalance.}; the key it binds to, else the name itself
	 */
	private Optional<String> name(String name) {
		ConfigurationPropertyName adapted = ConfigurationPropertyName.adapt(name, '.');
		if (!ROOT.isAncestorOf(adapted)) {
			return Optional.empty();
		}
		return Optional.of(this.byName.getOrDefault(adapted, name));
	}

	private Optional<String> variable(String name) {
		String upper = name.toUpperCase(Locale.ROOT);
		if (!upper.startsWith("INCREMENTAL_REBALANCE_") && !upper.startsWith("INCREMENTALREBALANCE_")) {
			return Optional.empty();
		}
		return Optional.of(this.byVariable.getOrDefault(upper, name));
	}

	private Unknown unknown(String name, String source, String key) {
		Optional<String> replacement = Optional.ofNullable(this.renamed.get(key));
		String uniform = uniform(name);
		Optional<String> nearest = replacement.isPresent() ? Optional.empty()
				: this.known.stream().min(Comparator.comparingInt((candidate) -> distance(uniform, uniform(candidate))));
		return new Unknown(name, source, replacement, nearest);
	}

	/** A key without case and separators, for telling how near one is to another. */
	private static String uniform(String name) {
		StringBuilder uniform = new StringBuilder(name.length());
		for (char c : name.toCharArray()) {
			if (Character.isLetterOrDigit(c)) {
				uniform.append(Character.toLowerCase(c));
			}
		}
		return uniform.toString();
	}

	/** Levenshtein's distance: the fewest insertions, deletions and substitutions that turn one into the other. */
	private static int distance(String a, String b) {
		int[] previous = new int[b.length() + 1];
		int[] current = new int[b.length() + 1];
		for (int j = 0; j <= b.length(); j++) {
			previous[j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			current[0] = i;
			for (int j = 1; j <= b.length(); j++) {
				int substitution = previous[j - 1] + ((a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1);
				current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
			}
			int[] swap = previous;
			previous = current;
			current = swap;
		}
		return previous[b.length()];
	}

	/**
	 * A key the starter does not know.
	 *
	 * @param key the key as the application wrote it
	 * @param source where it was set (a file, the environment, the command line)
	 * @param replacement the key that replaced it, when it is a name from before 1.0
	 * @param nearest the known key nearest to it otherwise
	 */
	record Unknown(String key, String source, Optional<String> replacement, Optional<String> nearest) {

		/**
		 * One line for the log and a refusal.
		 * @return what was wrong and what is accepted
		 */
		String describe() {
			String what = this.key + " (" + this.source + ") is not a key of incremental-rebalance and is ignored";
			if (this.replacement.isPresent()) {
				return what + ": before 1.0 it was the name of " + this.replacement.get() + ", set that instead";
			}
			return what + this.nearest.map((near) -> "; the nearest key is " + near).orElse("");
		}

	}

}
