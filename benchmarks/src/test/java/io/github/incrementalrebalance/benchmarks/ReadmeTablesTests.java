package io.github.incrementalrebalance.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The tables of the benchmarks' README, the measured page and the supported stacks' page say what the committed
 * results say. With {@code -Dbenchmark.tables.write=true} the tables are written from the results instead (after a
 * benchmark's results were committed).
 */
class ReadmeTablesTests {

	private static final Path README = Path.of("README.md");

	private static final Path MEASURED = Path.of("..", "docs", "measured.md");

	private static final Path SUPPORTED_STACKS = Path.of("..", "docs", "supported-stacks.md");

	private static final Path RESULTS = Path.of("results");

	@Test
	void everyTableIsWhatItsResultsFileSays() throws IOException {
		assertThat(Files.readString(README)).contains("<!-- table: scale-down -->");
		assertThat(Files.readString(MEASURED)).contains("<!-- table: hand-over-steps -->");
		assertThat(Files.readString(SUPPORTED_STACKS)).contains("<!-- table: streams-scale-down -->");
		for (Path page : List.of(README, MEASURED, SUPPORTED_STACKS)) {
			String text = Files.readString(page);
			String fromResults = ReadmeTables.rewrite(text, RESULTS);
			if (Boolean.getBoolean("benchmark.tables.write")) {
				Files.writeString(page, fromResults);
				continue;
			}
			assertThat(fromResults).as(page + "'s tables against results/ (write them with ./mvnw -pl benchmarks test "
					+ "-Dtest=ReadmeTablesTests -Dbenchmark.tables.write=true)").isEqualTo(text);
		}
	}

	@Test
	void aFigureTypedOverIsPutBackFromTheResults() {
		String table = ReadmeTables.scaleDown(RESULTS);
		// the first median stall in the table, whatever the results say, becomes one no run measured
		String typedOver = "<!-- table: scale-down -->\n" + table.replaceFirst("\\| [0-9.]+ s \\(", "| 999.9 s (")
				+ "<!-- end table -->";
		assertThat(typedOver).as("the figure to type over").contains("| 999.9 s (");
		assertThat(ReadmeTables.rewrite(typedOver, RESULTS))
			.isEqualTo("<!-- table: scale-down -->\n" + table + "<!-- end table -->");
	}

	@Test
	void aTableOfAnUnknownNameIsRefusedNamingTheKnownOnes() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ReadmeTables.rewrite("<!-- table: rolling -->\n<!-- end table -->", RESULTS))
			.withMessage("no table named 'rolling'; known: [assignor-scale, chaos, chaos-faults, chaos-three-brokers, "
					+ "control-topic-history, control-topic-scale, hand-over-steps, host-swap, rack-cost, scale-down, "
					+ "scale-out, scale-up, state-size, streams-scale-down]");
	}

}
