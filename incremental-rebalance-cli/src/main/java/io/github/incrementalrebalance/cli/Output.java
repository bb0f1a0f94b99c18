package io.github.incrementalrebalance.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.function.Function;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * How a command prints what it did: a table for people, or JSON for scripts (one document, or with {@code --watch}
 * one per line).
 */
final class Output {

	private static final ObjectMapper mapper = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

	private static final ObjectMapper lines = JsonMapper.shared();

	/**
	 * The formats.
	 */
	enum Format {

		TEXT, JSON

	}

	@Option(names = { "-o", "--output" }, paramLabel = "FORMAT", defaultValue = "text",
			description = "text or json (default: ${DEFAULT-VALUE}).", converter = FormatConverter.class)
	Format format = Format.TEXT;

	boolean json() {
		return this.format == Format.JSON;
	}

	/**
	 * Print what a leave or cancel did for each instance: one JSON array, or a line each (skipped ones as a WARN on
	 * the error stream).
	 * @param out the output
	 * @param err the error output
	 * @param outcomes what was done
	 * @param done the line of an instance that was not skipped
	 * @return the exit status: {@link ExitCodes#REFUSED} when one was skipped
	 */
	int printOutcomes(PrintWriter out, PrintWriter err, List<Outcome> outcomes, Function<Outcome, String> done) {
		if (json()) {
			printJson(out, outcomes);
		}
		else {
			for (Outcome outcome : outcomes) {
				if (outcome.wasSkipped()) {
					err.println("WARN: " + outcome.reason() + "; skipped");
				}
				else {
					out.println(done.apply(outcome));
				}
			}
		}
		return outcomes.stream().anyMatch(Outcome::wasSkipped) ? ExitCodes.REFUSED : ExitCodes.OK;
	}

	static void printJson(PrintWriter out, Object value) {
		print(out, mapper, value);
	}

	/**
	 * Print one JSON document on one line: what a script reading a stream of them (JSON lines) splits on.
	 * @param out the output
	 * @param value the document
	 */
	static void printJsonLine(PrintWriter out, Object value) {
		print(out, lines, value);
	}

	private static void print(PrintWriter out, ObjectMapper writer, Object value) {
		out.println(writer.writeValueAsString(value));
	}

	/**
	 * Accepts the format in any case.
	 */
	static final class FormatConverter implements ITypeConverter<Format> {

		@Override
		public Format convert(String value) {
			for (Format format : Format.values()) {
				if (format.name().equalsIgnoreCase(value)) {
					return format;
				}
			}
			throw new TypeConversionException("'" + value + "' is not a format: use text or json");
		}

	}

}
