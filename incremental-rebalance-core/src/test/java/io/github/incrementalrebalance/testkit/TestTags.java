package io.github.incrementalrebalance.testkit;

/**
 * The tags that shape which tests a stack runs. The default stack runs every test; every other stack of the matrix
 * runs the unit tests and those tagged {@link #CLIENT_LINE}, selected with
 * {@code -Dgroups='client-line | !broker'}; CI runs those tagged {@link #TIMING} once more alone (see
 * {@code .ci/run}).
 */
public final class TestTags {

	/**
	 * A test class that runs against a real broker ({@link KafkaBroker} refuses to start for a class without it).
	 */
	public static final String BROKER = "broker";

	/**
	 * A test class that exercises what differs between Kafka client lines: leave and close, the wiring into Kafka
	 * Streams and Spring, static membership, the drain's end, the client supplier, the command line's jar.
	 */
	public static final String CLIENT_LINE = "client-line";

	/**
	 * A test class that holds a hand-over to the stall bound the project publishes: a measurement, which the build
	 * leaves out and CI runs alone ({@code -Ptiming}), with nothing else on the machine.
	 */
	public static final String TIMING = "timing";

	private TestTags() {
	}

}
