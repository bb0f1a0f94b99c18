package io.github.incrementalrebalance.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Where benchmark tables go: {@code benchmarks/target/benchmark-results.md}, appended run by run, and the console.
 */
final class ResultsFile {

	static final Path PATH = Path.of("target", "benchmark-results.md");

	private ResultsFile() {
	}

	static void append(String title, String table) {
		String section = "## " + title + "\n\n" + table + "\n\n";
		System.out.print(section);
		try {
			Files.createDirectories(PATH.getParent());
			Files.writeString(PATH, section, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
