/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.sim;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * How Redis 7.0 reads and writes numbers, where Java's own conversions differ: C's {@code strtod} (which Redis calls to
 * parse scores and score ranges), {@code string2ll} (integers: no sign but '-', no leading zeros, no spaces), and
 * {@code printf("%.17g")} (how scores, and Lua numbers passed to {@code redis.call}, become text).
 */
final class RedisNumbers {

    private RedisNumbers() {}

    /** What {@link #strtod} read: the value, the index where reading stopped, and whether C would set ERANGE. */
    record Parsed(double value, int end, boolean erange) {}

    /**
     * C's {@code strtod} on {@code s} from {@code from}: leading white space, a sign, then {@code inf}/{@code infinity},
     * {@code nan}/{@code nan(...)}, a hexadecimal or a decimal number. When nothing is read the end is {@code from}
     * (not after the white space) and the value 0.
     */
    static Parsed strtod(String s, int from) {
        Parsed integral = plainInteger(s, from);
        if (integral != null) {
            return integral;
        }
        int i = from;
        while (i < s.length() && isSpace(s.charAt(i))) {
            i++;
        }
        boolean negative = false;
        if (i < s.length() && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
            negative = s.charAt(i) == '-';
            i++;
        }
        if (startsWithIgnoreCase(s, i, "inf")) {
            int end = startsWithIgnoreCase(s, i, "infinity") ? i + 8 : i + 3;
            return new Parsed(negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY, end, false);
        }
        if (startsWithIgnoreCase(s, i, "nan")) {
            int end = i + 3;
            if (end < s.length() && s.charAt(end) == '(') {
                int j = end + 1;
                while (j < s.length()
                        && ((Character.isLetterOrDigit(s.charAt(j)) && s.charAt(j) < 0x80) || s.charAt(j) == '_')) {
                    j++;
                }
                if (j < s.length() && s.charAt(j) == ')') {
                    end = j + 1;
                }
            }
            return new Parsed(Double.NaN, end, false);
        }
        if (i + 1 < s.length() && s.charAt(i) == '0' && (s.charAt(i + 1) == 'x' || s.charAt(i + 1) == 'X')) {
            Parsed hex = hex(s, i + 2, negative);
            if (hex != null) {
                return hex;
            }
            // "0x" without hex digits: strtod reads the 0 alone.
        }
        int start = i;
        int digits = 0;
        boolean nonZero = false;
        while (i < s.length() && isDigit(s.charAt(i))) {
            nonZero |= s.charAt(i) != '0';
            i++;
            digits++;
        }
        if (i < s.length() && s.charAt(i) == '.') {
            i++;
            while (i < s.length() && isDigit(s.charAt(i))) {
                nonZero |= s.charAt(i) != '0';
                i++;
                digits++;
            }
        }
        if (digits == 0) {
            return new Parsed(0, from, false);
        }
        if (i < s.length() && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
            int j = i + 1;
            if (j < s.length() && (s.charAt(j) == '+' || s.charAt(j) == '-')) {
                j++;
            }
            if (j < s.length() && isDigit(s.charAt(j))) {
                while (j < s.length() && isDigit(s.charAt(j))) {
                    j++;
                }
                i = j;
            }
        }
        double v = Double.parseDouble(s.substring(start, i));
        v = negative ? -v : v;
        return new Parsed(v, i, Double.isInfinite(v) || (v == 0 && nonZero));
    }

    /** The common case, fast: an optional '-' and at most 15 digits, which a double holds exactly; else null. */
    private static Parsed plainInteger(String s, int from) {
        int i = from < s.length() && s.charAt(from) == '-' ? from + 1 : from;
        int n = s.length() - i;
        if (n < 1 || n > 15) {
            return null;
        }
        long v = 0;
        for (; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return null;
            }
            v = v * 10 + (c - '0');
        }
        boolean negative = s.charAt(from) == '-';
        return new Parsed(negative ? -(double) v : v, s.length(), false);
    }

    /** The hexadecimal form after "0x"; null if no hex digit follows. */
    private static Parsed hex(String s, int i, boolean negative) {
        int start = i;
        int digits = 0;
        boolean nonZero = false;
        while (i < s.length() && Character.digit(s.charAt(i), 16) >= 0 && s.charAt(i) < 0x80) {
            nonZero |= s.charAt(i) != '0';
            i++;
            digits++;
        }
        if (i < s.length() && s.charAt(i) == '.') {
            int j = i + 1;
            int after = 0;
            while (j < s.length() && Character.digit(s.charAt(j), 16) >= 0 && s.charAt(j) < 0x80) {
                nonZero |= s.charAt(j) != '0';
                j++;
                after++;
            }
            if (digits + after > 0) {
                i = j;
                digits += after;
            }
        }
        if (digits == 0) {
            return null;
        }
        String mantissa = s.substring(start, i);
        String exponent = "0";
        if (i < s.length() && (s.charAt(i) == 'p' || s.charAt(i) == 'P')) {
            int j = i + 1;
            if (j < s.length() && (s.charAt(j) == '+' || s.charAt(j) == '-')) {
                j++;
            }
            if (j < s.length() && isDigit(s.charAt(j))) {
                while (j < s.length() && isDigit(s.charAt(j))) {
                    j++;
                }
                exponent = s.substring(i + 1, j);
                i = j;
            }
        }
        double v = Double.parseDouble("0x" + (mantissa.startsWith(".") ? "0" : "") + mantissa + "p" + exponent);
        v = negative ? -v : v;
        return new Parsed(v, i, Double.isInfinite(v) || (v == 0 && nonZero));
    }

    /**
     * A score as {@code ZADD} reads it ({@code string2d}): all of {@code s}, no leading white space, no NaN, and no
     * overflow or underflow to zero; null otherwise.
     */
    static Double score(String s) {
        if (s.isEmpty() || isSpace(s.charAt(0))) {
            return null;
        }
        Parsed p = strtod(s, 0);
        if (p.end() != s.length() || p.erange() || Double.isNaN(p.value())) {
            return null;
        }
        return p.value();
    }

    /**
     * One end of a score range as {@code ZRANGEBYSCORE} reads it: plain {@code strtod}, which must reach the end and
     * not be NaN (white space first is read, an empty text is 0, an overflow is infinity); null otherwise.
     */
    static Double rangeEnd(String s, int from) {
        if (from == 0 && s.length() <= 4) {
            if (s.equals("-inf")) {
                return Double.NEGATIVE_INFINITY;
            }
            if (s.equals("+inf") || s.equals("inf")) {
                return Double.POSITIVE_INFINITY;
            }
        }
        Parsed p = strtod(s, from);
        if (p.end() != s.length() || Double.isNaN(p.value())) {
            return null;
        }
        return p.value();
    }

    /** An integer as Redis reads one ({@code string2ll}): "0", or '-'? then 1-9 then digits, within a long. */
    static Long integer(String s) {
        int i = s.startsWith("-") ? 1 : 0;
        if (s.equals("0")) {
            return 0L;
        }
        if (i >= s.length() || s.charAt(i) < '1' || s.charAt(i) > '9') {
            return null;
        }
        for (int j = i; j < s.length(); j++) {
            if (!isDigit(s.charAt(j))) {
                return null;
            }
        }
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** C's {@code printf("%.17g", d)}, with "inf" and "-inf" as Redis writes them. */
    static String g17(double d) {
        if (Double.isNaN(d)) {
            return "nan";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        if (d == 0) {
            return 1 / d < 0 ? "-0" : "0";
        }
        if (d == Math.rint(d) && Math.abs(d) < 1e17) {
            return Long.toString((long) d); // all its digits fit in 17: what %.17g writes (and the common case)
        }
        BigDecimal rounded = new BigDecimal(d).round(new MathContext(17, RoundingMode.HALF_EVEN));
        int exponent = rounded.precision() - rounded.scale() - 1;
        BigDecimal stripped = rounded.stripTrailingZeros();
        if (exponent >= -4 && exponent < 17) {
            return stripped.toPlainString();
        }
        String digits = stripped.unscaledValue().abs().toString();
        StringBuilder b = new StringBuilder(26);
        if (stripped.signum() < 0) {
            b.append('-');
        }
        b.append(digits.charAt(0));
        if (digits.length() > 1) {
            b.append('.').append(digits, 1, digits.length());
        }
        b.append('e').append(exponent < 0 ? '-' : '+');
        int magnitude = Math.abs(exponent);
        if (magnitude < 10) {
            b.append('0');
        }
        return b.append(magnitude).toString();
    }

    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == 0x0b || c == '\f' || c == '\r';
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean startsWithIgnoreCase(String s, int at, String word) {
        return s.regionMatches(true, at, word, 0, word.length());
    }
}
