package io.github.incrementalrebalance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The core's shape, checked on its main classes: packages form no cycle (planner, then identity and config, then
 * assignor, control, member), the planner imports nothing else of the project, and the member side stays in parts small
 * enough to read (docs/architecture.md).
 */
class ArchitectureTests {

	private static final String ROOT = "io.github.incrementalrebalance";

	private static final int MOST_LINES = 400;

	private static final JavaClasses MAIN = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
		.importPackages(ROOT);

	@Test
	void packagesFormNoCycle() {
		slices().matching(ROOT + ".(*)..").should().beFreeOfCycles().check(MAIN);
	}

	@Test
	void plannerImportsNothingElseOfTheProject() {
		noClasses().that()
			.resideInAPackage(ROOT + ".planner..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage(ROOT + ".assignor..", ROOT + ".config..", ROOT + ".control..", ROOT + ".identity..",
					ROOT + ".member..")
			.check(MAIN);
	}

	@ParameterizedTest
	@ValueSource(strings = { "member", "control" })
	void memberSideClassesStayShort(String pkg) throws IOException {
		Path sources = Path.of("src/main/java", ROOT.replace('.', '/'), pkg);
		try (Stream<Path> files = Files.list(sources)) {
			List<String> tooLong = files.filter((file) -> file.toString().endsWith(".java")).filter((file) -> {
				try {
					return Files.readAllLines(file).size() > MOST_LINES;
				}
				catch (IOException ex) {
					throw new IllegalStateException(ex);
				}
			}).map((file) -> file.getFileName().toString()).toList();
			assertThat(tooLong).as("classes of %s over %d lines", pkg, MOST_LINES).isEmpty();
		}
	}

}
