package io.github.incrementalrebalance.autoconfigure;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The Grafana dashboard shipped in {@code deploy/grafana}: the Prometheus series and labels its queries use.
 */
final class GrafanaDashboard {

	static final Path FILE = Path.of("..", "deploy", "grafana", "incremental-rebalance.json");

	private static final Pattern SERIES = Pattern.compile("\\b(incremental_rebalance_[a-z_]+)");

	private static final Pattern GROUPING = Pattern.compile("\\bby \\(([^)]*)\\)");

	private static final Pattern SELECTOR_LABEL = Pattern.compile("[{,]\\s*([a-z_]+)\\s*=~?");

	private static final Pattern LEGEND_LABEL = Pattern.compile("\\{\\{\\s*([a-z_]+)\\s*}}");

	private final List<Query> queries;

	private GrafanaDashboard(List<Query> queries) {
		this.queries = queries;
	}

	static GrafanaDashboard read() throws IOException {
		JsonNode dashboard = new ObjectMapper().readTree(FILE.toFile());
		List<Query> queries = new ArrayList<>();
		for (JsonNode panel : dashboard.path("panels")) {
			for (JsonNode target : panel.path("targets")) {
				queries.add(new Query(panel.path("title").asString(), target.path("expr").asString(),
						target.path("legendFormat").asString()));
			}
		}
		queries.add(new Query("variable application",
				dashboard.path("templating").path("list").findValue("definition").asString(), ""));
		return new GrafanaDashboard(queries);
	}

	List<Query> queries() {
		return this.queries;
	}

	/**
	 * One query of a panel.
	 */
	record Query(String panel, String expr, String legend) {

		Set<String> series() {
			return matches(SERIES, this.expr);
		}

		/** The labels it selects, groups by or shows. */
		Set<String> labels() {
			Set<String> labels = new TreeSet<>(matches(SELECTOR_LABEL, this.expr));
			Matcher grouping = GROUPING.matcher(this.expr);
			while (grouping.find()) {
				for (String label : grouping.group(1).split(",")) {
					labels.add(label.trim());
				}
			}
			labels.addAll(matches(LEGEND_LABEL, this.legend));
			Matcher values = Pattern.compile("label_values\\([a-z_]+, ([a-z_]+)\\)").matcher(this.expr);
			while (values.find()) {
				labels.add(values.group(1));
			}
			return labels;
		}

		private static Set<String> matches(Pattern pattern, String text) {
			Set<String> found = new TreeSet<>();
			Matcher matcher = pattern.matcher(text);
			while (matcher.find()) {
				found.add(matcher.group(1));
			}
			return found;
		}

	}

}
