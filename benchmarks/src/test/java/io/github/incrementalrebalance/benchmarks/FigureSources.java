package io.github.incrementalrebalance.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import tools.jackson.databind.JsonNode;

/**
 * Where each table of figures in a page comes from, as the comments in the text above it say:
 * {@code <!-- results: a.json b.json -->}, files under {@code results/} stamped with the commit they were measured
 * at, which the text or the table names; {@code <!-- history: 2026-12-02 -->}, runs that left no stamped file,
 * dated in the text or the table; or {@code <!-- no results: why -->} for a table that holds no measurement. A table
 * of several runs has a comment of each kind its rows come from.
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
			int tableEnd = i;
			while (tableEnd + 1 < lines.length && lines[tableEnd + 1].startsWith("|")) {
				tableEnd++;
			}
			String region = String.join("\n", List.of(lines).subList(regionStart, i));
			String table = "the table at line " + (i + 1) + " (" + abbreviated(lines[i]) + ")";
			// a row may name the run it comes from, as a table of several runs does
			String text = MARKER.matcher(region).replaceAll("") + "\n"
					+ String.join("\n", List.of(lines).subList(i, tableEnd + 1));
			Matcher marker = MARKER.matcher(region);
			boolean said = false;
			while (marker.find()) {
				said = true;
				for (String value : marker.group(2).trim().split("[ ,]+")) {
					if (marker.group(1).equals("results")) {
						problems.addAll(stampProblems(table, value, results, text));
					}
					else if (marker.group(1).equals("history") && !text.contains(value)) {
						problems.add(table + " is history of " + value + ", which its text does not say");
					}
				}
			}
			if (!said) {
				problems.add(table + " says nowhere where its figures come from: put <!-- results: FILE.json --> "
						+ "(a file under results/), <!-- history: YYYY-MM-DD --> or <!-- no results: WHY --> above it");
			}
			i = tableEnd;
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
					+ ", which neither the text above it nor the table names");
		}
		return List.of();
	}


	private static String abbreviated(String line) {
		return (line.length() > 60) ? line.substring(0, 60) + "..." : line;
	}

}
