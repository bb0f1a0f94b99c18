package io.github.incrementalrebalance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The core's shape, checked on its main classes: each package imports only those before it in planner, identity,
 * config, assignor, control, member (the arrows of docs/architecture.md), so that they form no cycle, and the planner
 * imports nothing else of the project. How a class is split is by job, which a line count cannot tell.
 */
class ArchitectureTests {

	private static final String ROOT = "io.github.incrementalrebalance";

	private static final JavaClasses MAIN = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
		.importPackages(ROOT);

	/**
	 * The first sentence of a class's Javadoc names its one job; a class without one has not been asked what it is for.
	 */
	@Test
	void everyMainClassSaysWhatItIsFor() throws IOException {
		Pattern declaration = Pattern.compile("^(?:public |final |abstract |sealed |non-sealed )*"
				+ "(?:class|interface|record|enum|@interface) (\\w+)", Pattern.MULTILINE);
		try (Stream<Path> sources = Files.walk(Path.of("src", "main", "java"))) {
			List<String> silent = sources.filter((path) -> path.toString().endsWith(".java"))
				.filter((path) -> !path.endsWith("package-info.java"))
				.filter((path) -> {
					String source = read(path);
					Matcher type = declaration.matcher(source);
					if (!type.find()) {
						return true;
					}
					String before = source.substring(0, type.start()).replaceAll("(?m)^@.*\\n(?:\\s+.*\\n)*", "");
					return !before.stripTrailing().endsWith("*/") || before.lastIndexOf("/**") < 0;
				})
				.map(Path::toString)
				.toList();
			assertThat(silent).as("main classes without a Javadoc saying what they are for").isEmpty();
		}
	}

	@Test
	void packagesFormNoCycle() {
		slices().matching(ROOT + ".(*)..").should().beFreeOfCycles().check(MAIN);
	}

	@Test
	void eachPackageImportsOnlyThoseBeforeIt() {
		layeredArchitecture().consideringOnlyDependenciesInLayers()
			.layer("planner").definedBy(ROOT + ".planner..")
			.layer("identity").definedBy(ROOT + ".identity..")
			.layer("config").definedBy(ROOT + ".config..")
			.layer("assignor").definedBy(ROOT + ".assignor..")
			.layer("control").definedBy(ROOT + ".control..")
			.layer("member").definedBy(ROOT + ".member..")
			.whereLayer("member").mayNotBeAccessedByAnyLayer()
			.whereLayer("control").mayOnlyBeAccessedByLayers("member")
			.whereLayer("assignor").mayOnlyBeAccessedByLayers("control", "member")
			.whereLayer("config").mayOnlyBeAccessedByLayers("assignor", "control", "member")
			.whereLayer("identity").mayOnlyBeAccessedByLayers("config", "assignor", "control", "member")
			.check(MAIN);
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

	private static String read(Path path) {
		try {
			return Files.readString(path);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
