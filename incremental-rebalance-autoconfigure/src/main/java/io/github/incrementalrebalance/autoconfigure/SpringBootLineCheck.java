package io.github.incrementalrebalance.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.SpringBootVersion;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Refuses to start on a Spring Boot line older than the one the starter is built for. On Spring Boot 3 the starter's
 * Boot 4 modules (Kafka, health) join Boot 3's on the class path: an application then fails later with an unrelated
 * error, or runs half wired. An initializer, so that it runs before anything of Boot 4 is loaded.
 */
final class SpringBootLineCheck implements ApplicationContextInitializer<ConfigurableApplicationContext> {

	/** The oldest Spring Boot major version the starter runs on. */
	static final int OLDEST_MAJOR = 4;

	/** The Spring Boot lines the starter is tested on, as its refusal names them. */
	static final String SUPPORTED_LINES = "Spring Boot 4.0, 4.1 or 4.2";

	@Override
	public void initialize(ConfigurableApplicationContext context) {
		check(SpringBootVersion.getVersion());
	}

	/**
	 * @param version the running Spring Boot's version; null when its jar does not say (nothing is refused then)
	 */
	static void check(@Nullable String version) {
		if (version == null) {
			return;
		}
		int dot = version.indexOf('.');
		String major = (dot > 0) ? version.substring(0, dot) : version;
		try {
			if (Integer.parseInt(major) < OLDEST_MAJOR) {
				throw new UnsupportedSpringBootException(version);
			}
		}
		catch (NumberFormatException ex) {
			// a version that is not numbered as Boot's are (a fork's build): nothing to compare
		}
	}

}
