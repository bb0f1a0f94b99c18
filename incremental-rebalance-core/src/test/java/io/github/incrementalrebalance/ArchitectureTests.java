package io.github.incrementalrebalance;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The core's shape, checked on its main classes: packages form no cycle (planner, then identity and config, then
 * assignor, control, member), and the planner imports nothing else of the project (docs/architecture.md). How a
 * class is split is by job, which a line count cannot tell.
 */
class ArchitectureTests {

	private static final String ROOT = "io.github.incrementalrebalance";

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

}
