package io.github.incrementalrebalance.benchmarks;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Draws the README's charts from the committed results ({@code benchmarks/results/*.json}) into
 * {@code benchmarks/results/charts/}; on demand, after copying new results there (see {@code benchmarks/README.md}).
 */
class DrawCharts {

	@Test
	void drawTheChartsOfTheCommittedResults() {
		List<Path> charts = BenchmarkCharts.draw(Path.of("results"), Path.of("results", "charts"));
		charts.forEach((chart) -> System.out.println("drew " + chart.toAbsolutePath()));
		assertThat(charts).isNotEmpty().allSatisfy((chart) -> assertThat(chart).isRegularFile());
	}

}
