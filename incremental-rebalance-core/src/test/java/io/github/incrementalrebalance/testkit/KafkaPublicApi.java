package io.github.incrementalrebalance.testkit;

import java.util.Map;
import java.util.Set;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The rule that main code uses only Kafka's public API: internal classes move between releases (Kafka 4.4 moved
 * {@code AppInfoParser} into an {@code internals} package, and code that imported it failed to load), so a jar built
 * on one Kafka line must not depend on them. Checked on the bytecode, so a fully qualified name in a method body counts
 * as much as an import.
 * <p>
 * Public means what Kafka publishes Javadoc for: in the clients, the packages its build lists for Javadoc; in Kafka
 * Streams, every package but those named {@code internals} or {@code internal}. Each module's test checks its own main
 * classes with {@link #checkMainClassesOf(String)}.
 */
public final class KafkaPublicApi {

	/** The clients' packages Kafka publishes Javadoc for. */
	private static final Set<String> PUBLIC_CLIENT_PACKAGES = Set.of("org.apache.kafka.clients.admin",
			"org.apache.kafka.clients.consumer", "org.apache.kafka.clients.producer", "org.apache.kafka.common",
			"org.apache.kafka.common.acl", "org.apache.kafka.common.annotation", "org.apache.kafka.common.errors",
			"org.apache.kafka.common.header", "org.apache.kafka.common.metrics",
			"org.apache.kafka.common.metrics.stats", "org.apache.kafka.common.quota",
			"org.apache.kafka.common.resource", "org.apache.kafka.common.serialization",
			"org.apache.kafka.common.config", "org.apache.kafka.common.config.provider",
			"org.apache.kafka.common.security.auth", "org.apache.kafka.common.security.plain",
			"org.apache.kafka.common.security.scram", "org.apache.kafka.common.security.token.delegation",
			"org.apache.kafka.common.security.oauthbearer", "org.apache.kafka.common.security.oauthbearer.secured");

	private static final String STREAMS = "org.apache.kafka.streams";

	/**
	 * Kafka classes outside the public API that main code may still use, each with the reason no public way exists.
	 * Empty: every use found so far had a public way.
	 */
	private static final Map<String, String> ALLOWED = Map.of();

	private KafkaPublicApi() {
	}

	/**
	 * Fail when a main class under the package depends on a Kafka class outside the public API.
	 * @param rootPackage the module's package
	 */
	public static void checkMainClassesOf(String rootPackage) {
		JavaClasses classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
			.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
			.importPackages(rootPackage);
		rule().check(classes);
	}

	/**
	 * The rule itself, for classes imported some other way.
	 * @return no class depends on a Kafka class outside the public API that is not allowed
	 */
	public static ArchRule rule() {
		return noClasses().should()
			.dependOnClassesThat(DescribedPredicate.describe("are Kafka classes outside its public API",
					KafkaPublicApi::internalToKafka))
			.because("internal Kafka classes move between releases; allowed: " + ALLOWED);
	}

	static boolean isPublic(String packageName) {
		if (PUBLIC_CLIENT_PACKAGES.contains(packageName)) {
			return true;
		}
		if (!packageName.equals(STREAMS) && !packageName.startsWith(STREAMS + ".")) {
			return false;
		}
		for (String segment : packageName.split("\\.")) {
			if (segment.equals("internals") || segment.equals("internal")) {
				return false;
			}
		}
		return true;
	}

	private static boolean internalToKafka(JavaClass type) {
		JavaClass outermost = type;
		while (outermost.getEnclosingClass().isPresent()) {
			outermost = outermost.getEnclosingClass().get();
		}
		return type.getPackageName().startsWith("org.apache.kafka.") && !isPublic(type.getPackageName())
				&& !ALLOWED.containsKey(outermost.getName());
	}

}
