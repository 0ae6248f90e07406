package dev.redlock.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Parses durations such as {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h}, {@code 1.5s} or ISO-8601
 * {@code PT10S}.
 */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

    private static final Pattern SIMPLE = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h|d)");

    /** Creates the converter; picocli instantiates it. */
    public DurationConverter() {}

    /**
     * Parses one duration.
     *
     * @param value the text given on the command line
     * @return the duration, never negative
     * @throws CommandLine.TypeConversionException if the text is not a duration
     */
    @Override
    public Duration convert(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        Matcher m = SIMPLE.matcher(v);
        if (m.matches()) {
            double amount = Double.parseDouble(m.group(1));
            double unitNanos = switch (m.group(2)) {
                case "ms" -> 1e6;
                case "s" -> 1e9;
                case "m" -> 60e9;
                case "h" -> 3600e9;
                default -> 86400e9;
            };
            return Duration.ofNanos(Math.round(amount * unitNanos));
        }
        try {
            Duration d = Duration.parse(value.trim());
            if (!d.isNegative()) {
                return d;
            }
        } catch (DateTimeParseException e) {
            // Reported below with the accepted forms.
        }
        throw new CommandLine.TypeConversionException("'" + value
                + "' is not a duration: use a number with ms, s, m, h or d (500ms, 10s, 2m) or ISO-8601 (PT10S)");
    }
}
