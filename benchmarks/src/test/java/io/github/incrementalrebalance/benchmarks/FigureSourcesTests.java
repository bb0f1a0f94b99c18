package io.github.incrementalrebalance.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

/**
 * Every table of figures the READMEs and the measured and supported-stacks pages publish says where its figures come
 * from, and a results file it names carries the commit it was measured at, which the text names.
 */
class FigureSourcesTests {

	private static final String COMMIT = "0d3f71f5760e0a8e5eeb0038698c41f827fd3c9b";

	private static final String TABLE = "| strategy | stall |\n|---|---|\n| learners | 0.3 s |\n";

	@TempDir
	Path results;

	@Test
	void everyTableOfFiguresSaysWhereItsFiguresComeFrom() throws IOException {
		for (Path page : List.of(Path.of("README.md"), Path.of("..", "README.md"), Path.of("..", "docs", "measured.md"),
				Path.of("..", "docs", "supported-stacks.md"))) {
			assertThat(FigureSources.problems(Files.readString(page), Path.of("results"))).as(page.toString()).isEmpty();
		}
	}

	@Test
	void aTableThatSaysNothingOfItsFiguresIsNamed() {
		assertThat(FigureSources.problems("## Scale-down\n\nMeasured today:\n\n" + TABLE, this.results))
			.singleElement(STRING)
			.startsWith("the table at line 5 (| strategy | stall |) says nowhere where its figures come from");
	}

	@Test
	void aResultsFileIsStampedAndItsCommitNamedInTheText() throws IOException {
		Files.writeString(this.results.resolve("stamped.json"), "{\"commit\": \"" + COMMIT + "\"}");
		Files.writeString(this.results.resolve("unstamped.json"), "{\"results\": []}");
		assertThat(FigureSources.problems("At 0d3f71f:\n<!-- results: stamped.json -->\n" + TABLE, this.results))
			.isEmpty();
		assertThat(FigureSources.problems("Today:\n<!-- results: stamped.json -->\n" + TABLE, this.results))
			.containsExactly("the table at line 3 (| strategy | stall |) comes from stamped.json measured at "
					+ "0d3f71f, which neither the text above it nor the table names");
		assertThat(FigureSources.problems("<!-- results: unstamped.json -->\n" + TABLE, this.results))
			.singleElement(STRING)
			.contains("names unstamped.json, which carries no commit");
		assertThat(FigureSources.problems("<!-- results: gone.json -->\n" + TABLE, this.results))
			.singleElement(STRING)
			.contains("names gone.json, which is not under");
	}

	@Test
	void historyIsDatedInTheText() {
		assertThat(FigureSources.problems("One run of 2026-12-02:\n<!-- history: 2026-12-02 -->\n" + TABLE,
				this.results)).isEmpty();
		assertThat(FigureSources.problems("One run:\n<!-- history: 2026-12-02 -->\n" + TABLE, this.results))
			.containsExactly("the table at line 3 (| strategy | stall |) is history of 2026-12-02, which its text "
					+ "does not say");
	}

	@Test
	void aTableOfSeveralRunsNamesEachInItsRows() throws IOException {
		Files.writeString(this.results.resolve("stamped.json"), "{\"commit\": \"" + COMMIT + "\"}");
		String sources = "<!-- results: stamped.json -->\n<!-- history: 2026-12-02 -->\n| scenario | stall |\n|---|---|\n";
		assertThat(FigureSources.problems(sources + "| scale-down (0d3f71f) | 0.3 s |\n| rolling (2026-12-02) | 0.8 s |\n",
				this.results)).isEmpty();
		assertThat(FigureSources.problems(sources + "| scale-down | 0.3 s |\n| rolling (2026-12-02) | 0.8 s |\n",
				this.results)).singleElement(STRING).contains("comes from stamped.json measured at 0d3f71f");
		assertThat(FigureSources.problems(sources + "| scale-down (0d3f71f) | 0.3 s |\n| rolling | 0.8 s |\n",
				this.results)).singleElement(STRING).contains("is history of 2026-12-02");
	}

	@Test
	void eachTableNeedsItsOwnSource() {
		String page = "<!-- no results: what each strategy is -->\n" + TABLE + "\nThen:\n\n" + TABLE;
		assertThat(FigureSources.problems(page, this.results)).singleElement(STRING).startsWith("the table at line 8 ");
	}

}
