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
import java.util.TreeMap;
import java.util.stream.Stream;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;

/**
 * Draws the README's charts from result files ({@link ResultsJson}): per scenario, the longest stall of the moved
 * tasks per strategy, one bar per group timings, side by side ({@link DrawCharts} runs it on the committed results).
 */
final class BenchmarkCharts {

	/** The scenario name (and name prefix of each run) of the scale-down's state-size sweep: one chart of all sizes. */
	static final String STATE_SIZE_SWEEP = "state-size";

	/** The steady-state benchmark's result file name, before its group timings. */
	static final String STEADY_STATE = "steady-state";


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
			// availability runs, a scenario at some group timings, have a chart per scenario; the steady state has
			// its own, the other results (the chaos runs' reports, the rack cost) none
			files.filter((file) -> file.toString().endsWith(".json"))
				.sorted()
				.map(ResultsJson::readTree)
				.filter((run) -> run.has("scenario") && run.has("timings"))
				.map((run) -> ResultsJson.treeToValue(run, ResultsJson.Run.class))
				.forEach((run) -> byScenario.computeIfAbsent(chartOf(run), (key) -> new ArrayList<>()).add(run));
			Files.createDirectories(charts);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		List<Path> drawn = new ArrayList<>();
		Path steady = results.resolve(STEADY_STATE + "-kafka.json");
		if (Files.exists(steady)) {
			drawn.add(save(steadyStateChart(ResultsJson.readSteadyState(steady)), charts.resolve(STEADY_STATE)));
		}
		byScenario.forEach((scenario, runs) -> drawn.add(save(
				STATE_SIZE_SWEEP.equals(scenario) ? sweepChart(runs) : stallChart(scenario, runs),
				charts.resolve(scenario))));
		return drawn;
	}

	private static String chartOf(ResultsJson.Run run) {
		return run.scenario().startsWith(STATE_SIZE_SWEEP + "-") ? STATE_SIZE_SWEEP : run.scenario();
	}

	/**
	 * The state-size sweep: the longest stall of the moved tasks against the records of state per task, a line per
	 * strategy (and group timings, when the sweep ran at both).
	 */
	static XYChart sweepChart(List<ResultsJson.Run> runs) {
		XYChart chart = new XYChartBuilder().width(800)
			.height(420)
			.title("scale-down by state size: longest stall of the moved tasks")
			.xAxisTitle("records of state per task (thousands)")
			.yAxisTitle("seconds")
			.build();
		chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
		chart.getStyler().setChartBackgroundColor(Color.WHITE);
		chart.getStyler().setDecimalPattern("0.#");
		boolean bothTimings = runs.stream().map(ResultsJson.Run::timings).distinct().count() > 1;
		Map<String, TreeMap<Integer, Double>> series = new LinkedHashMap<>();
		for (ResultsJson.Run run : runs) {
			run.medianMovedStallSeconds().forEach((strategy, seconds) -> {
				String name = bothTimings ? strategy + " (" + run.timingsLabel() + ")" : strategy;
				series.computeIfAbsent(name, (key) -> new TreeMap<>()).put(run.keysPerTask() / 1000, seconds);
			});
		}
		series.forEach((name, points) -> chart.addSeries(name, new ArrayList<>(points.keySet()),
				new ArrayList<>(points.values())));
		return chart;
	}

	static CategoryChart stallChart(String scenario, List<ResultsJson.Run> runs) {
		CategoryChart chart = new CategoryChartBuilder().width(800)
			.height(420)
			.title(scenario + ": longest stall of the moved tasks (median)")
			.xAxisTitle("strategy")
			.yAxisTitle("seconds")
			.build();
		chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
		chart.getStyler().setLabelsVisible(true);
		chart.getStyler().setDecimalPattern("0.0");
		chart.getStyler().setChartBackgroundColor(Color.WHITE);
		List<String> strategies = List.copyOf(runs.get(0).medianMovedStallSeconds().keySet());
		for (ResultsJson.Run run : runs) {
			Map<String, Double> seconds = run.medianMovedStallSeconds();
			chart.addSeries(run.timingsLabel(), strategies,
					strategies.stream().map((strategy) -> (Number) seconds.getOrDefault(strategy, 0.0)).toList());
		}
		return chart;
	}

	/**
	 * The starter in steady state against plain Kafka Streams: the medians of throughput and p99 latency, each
	 * relative to plain Kafka Streams (1.0).
	 */
	static CategoryChart steadyStateChart(SteadyState.Run run) {
		CategoryChart chart = new CategoryChartBuilder().width(800)
			.height(420)
			.title("steady state, relative to plain Kafka Streams (" + run.results().size() / 2 + " rounds)")
			.xAxisTitle("figure")
			.yAxisTitle("relative to plain Kafka Streams")
			.build();
		chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
		chart.getStyler().setLabelsVisible(true);
		chart.getStyler().setDecimalPattern("0.00");
		chart.getStyler().setChartBackgroundColor(Color.WHITE);
		List<String> figures = List.of("throughput (median of the rounds' ratios)", "p99 latency (medians)");
		chart.addSeries(Strategy.KAFKA_DEFAULT.id(), figures, List.of(1.0, 1.0));
		chart.addSeries(Strategy.LEARNER_CONSERVATIVE.id(), figures,
				List.of(run.summary().pairedThroughputRatio(), run.summary().p99Ratio()));
		return chart;
	}

	private static Path save(Chart<?, ?> chart, Path withoutExtension) {
		try {
			BitmapEncoder.saveBitmap(chart, withoutExtension.toString(), BitmapEncoder.BitmapFormat.PNG);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return Path.of(withoutExtension + ".png");
	}

}
