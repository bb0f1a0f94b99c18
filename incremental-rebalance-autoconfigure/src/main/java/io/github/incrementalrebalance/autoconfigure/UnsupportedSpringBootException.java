package io.github.incrementalrebalance.autoconfigure;

/**
 * The application runs a Spring Boot line the starter is not built for.
 */
public final class UnsupportedSpringBootException extends IllegalStateException {

	private static final long serialVersionUID = 1L;

	private final String version;

	/**
	 * @param version the running Spring Boot's version
	 */
	UnsupportedSpringBootException(String version) {
		super("incremental-rebalance-starter needs " + SpringBootLineCheck.SUPPORTED_LINES
				+ "; this application runs Spring Boot " + version);
		this.version = version;
	}

	/**
	 * @return the running Spring Boot's version
	 */
	public String version() {
		return this.version;
	}

}
