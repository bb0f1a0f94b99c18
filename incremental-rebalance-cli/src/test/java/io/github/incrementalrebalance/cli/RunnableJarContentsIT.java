package io.github.incrementalrebalance.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the runnable jar hands an operator besides the command line: the project's license, and a list naming every
 * component it bundles with that component's license, so that the jar can be redistributed as it is.
 */
class RunnableJarContentsIT {

	private static final Path JAR = Path.of(System.getProperty("cli.jar"));

	/** The build's list of what the jar bundles: the module's runtime dependencies, one per line. */
	private static final Path BUNDLED = Path.of(System.getProperty("cli.bundled"));

	private static final Pattern COMPONENT = Pattern.compile("^\\s*([\\w.-]+:[\\w.-]+):jar:");

	@Test
	void everyBundledComponentIsNamedWithItsLicense() throws IOException {
		try (JarFile jar = new JarFile(JAR.toFile())) {
			String thirdParty = read(jar, "META-INF/THIRD-PARTY.txt");
			List<String> bundled = Files.readAllLines(BUNDLED)
				.stream()
				.map(COMPONENT::matcher)
				.filter(Matcher::find)
				.map((component) -> component.group(1))
				.toList();
			assertThat(bundled).as("components bundled, as %s lists them", BUNDLED)
				.contains("org.apache.kafka:kafka-clients");
			assertThat(bundled).allSatisfy((component) -> assertThat(thirdParty)
				.as("META-INF/THIRD-PARTY.txt names %s (src/shade/THIRD-PARTY.txt)", component)
				.containsPattern("(?m)^" + Pattern.quote(component) + "\\s+\\S"));
			assertThat(read(jar, "META-INF/LICENSE")).as("the project's license")
				.isEqualTo(Files.readString(Path.of("..", "LICENSE")));
			assertThat(jar.getManifest().getMainAttributes().getValue("Main-Class"))
				.isEqualTo(RebalanceCli.class.getName());
		}
	}

	/**
	 * Kafka Streams' RocksDB, about 70 MB of native libraries, is not bundled: the command line opens no state store
	 * ({@link CommandLineJarIT} runs this jar against a broker without it).
	 */
	@Test
	void bundlesNoStateStoreEngine() throws IOException {
		try (JarFile jar = new JarFile(JAR.toFile())) {
			assertThat(jar.stream().map(ZipEntry::getName))
				.noneMatch((name) -> name.startsWith("org/rocksdb/") || name.contains("librocksdbjni"));
		}
		// 117 MB with RocksDB, 44 MB without
		assertThat(Files.size(JAR)).as("the runnable jar's size").isLessThan(64L * 1024 * 1024);
	}

	private static String read(JarFile jar, String name) throws IOException {
		ZipEntry entry = jar.getEntry(name);
		assertThat(entry).as(name + " in " + JAR).isNotNull();
		try (InputStream in = jar.getInputStream(entry)) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
	}

}
