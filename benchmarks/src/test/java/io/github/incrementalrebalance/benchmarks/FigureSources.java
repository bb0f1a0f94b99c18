package io.github.incrementalrebalance.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import tools.jackson.databind.JsonNode;

/**
 * Where each table of figures in a page comes from, as the comment in the text above it says:
 * {@code <!-- results: a.json b.json -->}, files under {@code results/} stamped with the commit they were measured
 * at, which the text names; {@code <!-- history: 2026-12-02 -->}, a run that left no stamped file, dated in the text;
 * or {@code <!-- no results: why -->} for a table that holds no measurement.
 */
final class FigureSources {

	private static final Pattern MARKER = Pattern.compile("<!-- (results|history|no results): ?(.*?) -->");

	private FigureSources() {
	}

	/**
	 * @param page the page's text
	 * @param results the directory of the committed results files
	 * @return what is wrong, one line per table: nothing when every table says where its figures come from
	 */
	static List<String> problems(String page, Path results) {
		List<String> problems = new ArrayList<>();
		String[] lines = page.split("\n", -1);
		int regionStart = 0;
		for (int i = 0; i < lines.length; i++) {
			if (lines[i].startsWith("#")) {
				regionStart = i;
			}
			boolean tableStarts = lines[i].startsWith("|") && (i == 0 || !lines[i - 1].startsWith("|"));
			if (!tableStarts) {
				continue;
			}
			String region = String.join("\n", List.of(lines).subList(regionStart, i));
			String table = "the table at line " + (i + 1) + " (" + abbreviated(lines[i]) + ")";
			Matcher marker = MARKER.matcher(region);
			String kind = null;
			String value = null;
			while (marker.find()) {
				kind = marker.group(1);
				value = marker.group(2).trim();
			}
			String text = MARKER.matcher(region).replaceAll("");
			if (kind == null) {
				problems.add(table + " says nowhere where its figures come from: put <!-- results: FILE.json --> "
						+ "(a file under results/), <!-- history: YYYY-MM-DD --> or <!-- no results: WHY --> above it");
			}
			else if (kind.equals("results")) {
				for (String file : value.split("[ ,]+")) {
					problems.addAll(stampProblems(table, file, results, text));
				}
			}
			else if (kind.equals("history") && !text.contains(value)) {
				problems.add(table + " is history of " + value + ", which the text above it does not say");
			}
			while (i + 1 < lines.length && lines[i + 1].startsWith("|")) {
				i++;
			}
			regionStart = i + 1;
		}
		return problems;
	}

	private static List<String> stampProblems(String table, String file, Path results, String text) {
		Path path = results.resolve(file);
		if (!Files.isRegularFile(path)) {
			return List.of(table + " names " + file + ", which is not under " + results);
		}
		JsonNode commit = ResultsJson.readTree(path).get("commit");
		if (commit == null || !commit.asString().matches("[0-9a-f]{40}")) {
			return List.of(table + " names " + file + ", which carries no commit: re-run it (benchmarks/run.sh) or "
					+ "mark the table <!-- history: ITS DATE -->");
		}
		String shortCommit = commit.asString().substring(0, 7);
		if (!text.contains(shortCommit)) {
			return List.of(table + " comes from " + file + " measured at " + shortCommit
					+ ", which the text above it does not name");
		}
		return List.of();
	}


	private static String abbreviated(String line) {
		return (line.length() > 60) ? line.substring(0, 60) + "..." : line;
	}

}
