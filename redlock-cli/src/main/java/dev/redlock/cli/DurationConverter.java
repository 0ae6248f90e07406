/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.cli;

import dev.redlock.RedlockConfig;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Parses durations such as {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h}, {@code 1.5s}, ISO-8601 {@code PT10S}
 * or a bare {@code 0}, and refuses those outside the option's range. Every duration it returns is at most
 * {@link #MAX} (about 292 years), so its {@code toNanos()} and {@code toMillis()} never overflow; the nested classes
 * narrow the range for one option.
 */
public class DurationConverter implements CommandLine.ITypeConverter<Duration> {

    /** The longest duration any option takes: 106751 days, just under what a {@code long} of nanoseconds holds. */
    public static final Duration MAX = Duration.ofDays(106_751);

    private static final Pattern SIMPLE = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h|d)");
    private static final BigDecimal MAX_NANOS = BigDecimal.valueOf(MAX.toNanos());

    private final Duration min;
    private final Duration max;

    /** Creates the converter for 0 to {@link #MAX}; picocli instantiates it. */
    public DurationConverter() {
        this(Duration.ZERO, MAX);
    }

    /**
     * Creates a converter for a narrower range.
     *
     * @param min the shortest duration accepted
     * @param max the longest duration accepted, at most {@link #MAX}
     */
    protected DurationConverter(Duration min, Duration max) {
        this.min = min;
        this.max = max.compareTo(MAX) > 0 ? MAX : max;
    }

    /**
     * Parses one duration.
     *
     * @param value the text given on the command line
     * @return the duration, within the converter's range
     * @throws CommandLine.TypeConversionException if the text is not a duration or is outside the range (picocli
     *     adds the option's name)
     */
    @Override
    public Duration convert(String value) {
        Duration d = parse(value);
        if (d == null || d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw new CommandLine.TypeConversionException(
                    "'" + value + "' is outside the allowed range " + format(min) + " to " + format(max));
        }
        return d;
    }

    /** The duration, null when it is longer than {@link #MAX}; throws when the text is not a duration. */
    private static Duration parse(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        if (v.equals("0")) {
            return Duration.ZERO; // the one number that needs no unit
        }
        Matcher m = SIMPLE.matcher(v);
        if (m.matches()) {
            long unitNanos = switch (m.group(2)) {
                case "ms" -> 1_000_000L;
                case "s" -> 1_000_000_000L;
                case "m" -> 60_000_000_000L;
                case "h" -> 3_600_000_000_000L;
                default -> 86_400_000_000_000L;
            };
            BigDecimal nanos = new BigDecimal(m.group(1))
                    .multiply(BigDecimal.valueOf(unitNanos))
                    .setScale(0, RoundingMode.HALF_UP);
            return nanos.compareTo(MAX_NANOS) > 0 ? null : Duration.ofNanos(nanos.longValueExact());
        }
        try {
            Duration d = Duration.parse(value.trim());
            if (!d.isNegative()) {
                return d.compareTo(MAX) > 0 ? null : d;
            }
        } catch (DateTimeParseException e) {
            if (e.getCause() instanceof ArithmeticException || e.getCause() instanceof NumberFormatException) {
                return null; // well formed, but a number beyond what a long or a Duration holds
            }
            // Otherwise reported below with the accepted forms.
        }
        throw new CommandLine.TypeConversionException("'" + value
                + "' is not a duration: use a number with ms, s, m, h or d (500ms, 10s, 2m), ISO-8601 (PT10S) or 0");
    }

    /** A range bound in the form the option takes: {@code 0}, {@code 1ms}, {@code 2s}, {@code 1h}, {@code 7d}. */
    static String format(Duration d) {
        if (d.isZero()) {
            return "0";
        }
        long nanos = d.toNanos();
        long[] units = {86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L};
        String[] names = {"d", "h", "m", "s", "ms"};
        for (int i = 0; i < units.length; i++) {
            if (nanos % units[i] == 0) {
                return nanos / units[i] + names[i];
            }
        }
        return d.toString();
    }

    /** {@code --lease}: the library's lease times, 1 ms to 7 days. */
    public static final class Lease extends DurationConverter {
        /** Creates the converter; picocli instantiates it. */
        public Lease() {
            super(Duration.ofMillis(1), RedlockConfig.MAX_LEASE_TIME);
        }
    }

    /** {@code --node-timeout}: the library's per-node timeouts, 1 ms to 1 min. */
    public static final class NodeTimeout extends DurationConverter {
        /** Creates the converter; picocli instantiates it. */
        public NodeTimeout() {
            super(Duration.ofMillis(1), RedlockConfig.MAX_PER_NODE_TIMEOUT);
        }
    }

    /** {@code --connect-timeout}: the library's connect timeouts, 1 ms to 5 min. */
    public static final class ConnectTimeout extends DurationConverter {
        /** Creates the converter; picocli instantiates it. */
        public ConnectTimeout() {
            super(Duration.ofMillis(1), RedlockConfig.MAX_CONNECT_TIMEOUT);
        }
    }

    /** {@code --grace}: 0 to 1 hour between SIGTERM and SIGKILL. */
    public static final class Grace extends DurationConverter {
        /** The longest grace period. */
        public static final Duration MAX_GRACE = Duration.ofHours(1);

        /** Creates the converter; picocli instantiates it. */
        public Grace() {
            super(Duration.ZERO, MAX_GRACE);
        }
    }

    /** {@code chaos --duration}: 2 seconds to 1 hour of workload. */
    public static final class ChaosDuration extends DurationConverter {
        /** Creates the converter; picocli instantiates it. */
        public ChaosDuration() {
            super(Duration.ofSeconds(2), Duration.ofHours(1));
        }
    }
}
