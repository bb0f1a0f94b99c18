package io.github.incrementalrebalance.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A duration as operators write it: {@code 90s}, {@code 5m}, {@code 1h}, {@code 500ms}, plain milliseconds, or
 * ISO-8601 ({@code PT5M}).
 */
final class DurationConverter implements ITypeConverter<Duration> {

	@Override
	public Duration convert(String value) {
		try {
			Duration duration = parse(value);
			if (duration.isNegative()) {
				throw new TypeConversionException("'" + value + "' is negative: use 0 or more");
			}
			return duration;
		}
		catch (DateTimeParseException | NumberFormatException ex) {
			throw new TypeConversionException("'" + value + "' is not a duration: use 90s, 5m, 1h, 500ms, "
					+ "milliseconds or ISO-8601 (PT5M)");
		}
	}

	private static Duration parse(String value) {
		if (value.matches("\\d+")) {
			return Duration.ofMillis(Long.parseLong(value));
		}
		if (value.matches("\\d+(ms|s|m|h)")) {
			long amount = Long.parseLong(value.replaceAll("\\D", ""));
			return switch (value.replaceAll("\\d", "")) {
				case "ms" -> Duration.ofMillis(amount);
				case "s" -> Duration.ofSeconds(amount);
				case "m" -> Duration.ofMinutes(amount);
				default -> Duration.ofHours(amount);
			};
		}
		return Duration.parse(value);
	}

}
