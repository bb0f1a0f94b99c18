package io.github.incrementalrebalance.testkit;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The start of a command that runs Java in a process of its own, as the test JVM runs: the same Java, and the test
 * JVM's choice of compiler and collector (the build runs its tests on the first tier and the throughput collector, see
 * {@code test.jit} and {@code test.gc} in the parent POM), so that a test's processes cost the build what its own JVM
 * does.
 */
public final class JavaCommand {

	private JavaCommand() {
	}

	/**
	 * @param options what follows {@code java}: JVM options, then the class or jar and its arguments
	 * @return the command, to add to
	 */
	public static List<String> of(String... options) {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		ManagementFactory.getRuntimeMXBean()
			.getInputArguments()
			.stream()
			.filter((option) -> option.startsWith("-XX:TieredStopAtLevel=")
					|| (option.startsWith("-XX:+Use") && option.endsWith("GC")))
			.forEach(command::add);
		command.addAll(List.of(options));
		return command;
	}

}
