package io.github.incrementalrebalance.benchmarks;

import java.awt.Color;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * Draws the README's charts from result files ({@link ResultsJson}): per scenario, the longest stall of the moved
 * tasks per strategy, one bar per group timings, side by side ({@link DrawCharts} runs it on the committed results).
 */
final class BenchmarkCharts {

	private BenchmarkCharts() {
	}

	/**
	 * Draw one chart per scenario found.
	 * @param results the directory of result files
	 * @param charts where the charts go, {@code <scenario>.png}
	 * @return the charts drawn
	 */
	static List<Path> draw(Path results, Path charts) {
		Map<String, List<ResultsJson.Run>> byScenario = new LinkedHashMap<>();
		try (Stream<Path> files = Files.list(results)) {
			files.filter((file) -> file.toString().endsWith(".json"))
				.sorted()
				.map(ResultsJson::read)
				.forEach((run) -> byScenario.computeIfAbsent(run.scenario(), (key) -> new ArrayList<>()).add(run));
			Files.createDirectories(charts);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		List<Path> drawn = new ArrayList<>();
		byScenario.forEach((scenario, runs) -> drawn.add(save(stallChart(scenario, runs), charts.resolve(scenario))));
		return drawn;
	}

	static CategoryChart stallChart(String scenario, List<ResultsJson.Run> runs) {
		CategoryChart chart = new CategoryChartBuilder().width(800)
			.height(420)
			.title(scenario + ": longest stall of the moved tasks")
			.xAxisTitle("strategy")
			.yAxisTitle("seconds")
			.build();
		chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
		chart.getStyler().setLabelsVisible(true);
		chart.getStyler().setDecimalPattern("0.0");
		chart.getStyler().setChartBackgroundColor(Color.WHITE);
		List<String> strategies = runs.get(0).results().stream().map(ResultsJson.Entry::strategy).toList();
		for (ResultsJson.Run run : runs) {
			Map<String, Double> seconds = new LinkedHashMap<>();
			run.results().forEach((entry) -> seconds.put(entry.strategy(), entry.movedStallMs() / 1000.0));
			chart.addSeries(run.timingsLabel(), strategies,
					strategies.stream().map((strategy) -> (Number) seconds.getOrDefault(strategy, 0.0)).toList());
		}
		return chart;
	}

	private static Path save(CategoryChart chart, Path withoutExtension) {
		try {
			BitmapEncoder.saveBitmap(chart, withoutExtension.toString(), BitmapEncoder.BitmapFormat.PNG);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return Path.of(withoutExtension + ".png");
	}

}
