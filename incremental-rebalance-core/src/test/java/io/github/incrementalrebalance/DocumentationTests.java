package io.github.incrementalrebalance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The project's pages as a reader follows them: the README is a front page, every page under {@code docs/} is
 * reached from it, and every link between the pages lands on a file and a heading that exist (headings as GitHub
 * anchors them). A section moved from one page to another breaks the links into it, which this finds.
 */
class DocumentationTests {

	private static final Path ROOT = Path.of("..");

	private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

	private static final Pattern HEADING = Pattern.compile("^#{1,6} (.*)$");

	@Test
	void theReadmeIsAFrontPage() throws IOException {
		assertThat(Files.readAllLines(ROOT.resolve("README.md"))).as("the README's lines").hasSizeLessThan(300);
	}

	@Test
	void ciRunsTheReadmesTestCommandFirst() throws IOException {
		String readme = Files.readString(ROOT.resolve("README.md"));
		Matcher tests = Pattern.compile("Run the tests[^\n]*\n\n```\n([^\n]+)\n```").matcher(readme);
		assertThat(tests.find()).as("the README's test command, in a block after 'Run the tests'").isTrue();
		Matcher firstStage = Pattern.compile("(?m)^stage \"[^\"]*\" (.+)$")
			.matcher(Files.readString(ROOT.resolve(".ci/run")));
		assertThat(firstStage.find()).as("a stage in .ci/run").isTrue();
		assertThat(firstStage.group(1)).as("what CI runs first").isEqualTo(tests.group(1));
	}

	@Test
	void everyPageUnderDocsIsReachedFromTheReadme() throws IOException {
		Set<Path> reached = new HashSet<>();
		Deque<Path> next = new ArrayDeque<>(List.of(normal(ROOT.resolve("README.md"))));
		while (!next.isEmpty()) {
			Path page = next.pop();
			if (reached.add(page)) {
				for (String target : links(page)) {
					String file = target.split("#", 2)[0];
					if (!file.isEmpty() && file.endsWith(".md")) {
						next.push(normal(page.resolveSibling(file)));
					}
				}
			}
		}
		try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
			assertThat(docs.filter((path) -> path.toString().endsWith(".md")).map(DocumentationTests::normal))
				.as("pages under docs/").isNotEmpty().allSatisfy((page) -> assertThat(reached).contains(page));
		}
	}

	@Test
	void everyLinkLandsOnAFileAndAHeadingThatExist() throws IOException {
		List<String> broken = new ArrayList<>();
		for (Path page : pages()) {
			for (String target : links(page)) {
				String[] parts = target.split("#", 2);
				Path file = parts[0].isEmpty() ? page : page.resolveSibling(parts[0]);
				if (!Files.exists(file)) {
					broken.add(ROOT.relativize(page) + ": " + target + " (no such file)");
				}
				else if (parts.length == 2 && file.toString().endsWith(".md") && !anchors(file).contains(parts[1])) {
					broken.add(ROOT.relativize(page) + ": " + target + " (no such heading)");
				}
			}
		}
		assertThat(broken).as("links that land nowhere").isEmpty();
	}

	private static List<Path> pages() throws IOException {
		List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("CHANGELOG.md"),
				ROOT.resolve("benchmarks").resolve("README.md")));
		try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
			docs.filter((path) -> path.toString().endsWith(".md")).forEach(pages::add);
		}
		return pages;
	}

	/** Relative links outside code blocks; a link with a scheme (https:, mailto:) is the web's. */
	private static List<String> links(Path page) {
		List<String> links = new ArrayList<>();
		for (String line : prose(page)) {
			Matcher link = LINK.matcher(line);
			while (link.find()) {
				if (!link.group(1).matches("^[a-z]+:.*")) {
					links.add(link.group(1));
				}
			}
		}
		return links;
	}

	/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens. */
	private static Set<String> anchors(Path page) {
		Set<String> anchors = new HashSet<>();
		for (String line : prose(page)) {
			Matcher heading = HEADING.matcher(line);
			if (heading.matches()) {
				anchors.add(heading.group(1)
					.strip()
					.toLowerCase(Locale.ROOT)
					.replaceAll("[^\\p{L}\\p{N}_\\- ]", "")
					.replace(' ', '-'));
			}
		}
		return anchors;
	}

	/** A page's lines outside fenced code blocks. */
	private static List<String> prose(Path page) {
		List<String> prose = new ArrayList<>();
		boolean code = false;
		try {
			for (String line : Files.readAllLines(page)) {
				if (line.startsWith("```")) {
					code = !code;
				}
				else if (!code) {
					prose.add(line);
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return prose;
	}

	private static Path normal(Path path) {
		return path.toAbsolutePath().normalize();
	}

}
