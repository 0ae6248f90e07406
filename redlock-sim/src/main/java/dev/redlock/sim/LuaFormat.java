/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.sim;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

/**
 * {@code string.format} as Redis's Lua 5.1 runs it: each item goes to C's {@code sprintf}. LuaJ's own writes a float
 * conversion as Java's {@code Double.toString} ({@code string.format('%.0f', 1e5)} gives "100000.0"), which the
 * library's scripts would pass on to {@code ZADD} and {@code PEXPIRE}; this one follows Lua 5.1's {@code str_format}
 * (at most 5 flags, 2-digit width and precision) and C's conversions, floats rounded from their exact binary value.
 */
final class LuaFormat {

    private static final String FLAGS = "-+ #0";

    private LuaFormat() {}

    private static final org.luaj.vm2.LuaString WHOLE = org.luaj.vm2.LuaString.valueOf("%.0f");

    /** {@code string.format(fmt, ...)}. */
    static LuaValue format(Varargs args) {
        if (args.narg() == 2 && args.arg(2).type() == LuaValue.TNUMBER && WHOLE.raweq(args.arg1())) {
            // The scripts' one format, '%.0f' of a whole number of milliseconds: its digits.
            double v = args.arg(2).todouble();
            if (v == Math.rint(v) && Math.abs(v) < 1e15 && (v != 0 || 1 / v > 0)) {
                return LuaValue.valueOf(Long.toString((long) v));
            }
        }
        String fmt = args.checkjstring(1);
        StringBuilder out = new StringBuilder(fmt.length() + 16);
        int arg = 1;
        int i = 0;
        while (i < fmt.length()) {
            char c = fmt.charAt(i++);
            if (c != '%') {
                out.append(c);
                continue;
            }
            if (i < fmt.length() && fmt.charAt(i) == '%') {
                out.append('%');
                i++;
                continue;
            }
            arg++;
            if (arg > args.narg()) {
                throw new LuaError("bad argument #" + arg + " to 'format' (no value)");
            }
            int start = i;
            while (i < fmt.length() && FLAGS.indexOf(fmt.charAt(i)) >= 0) {
                i++;
            }
            if (i - start >= FLAGS.length() + 1) {
                throw new LuaError("invalid format (repeated flags)");
            }
            String flags = fmt.substring(start, i);
            int widthStart = i;
            i = skipDigits(fmt, i);
            int width = i > widthStart ? Integer.parseInt(fmt.substring(widthStart, i)) : 0;
            int precision = -1;
            if (i < fmt.length() && fmt.charAt(i) == '.') {
                i++;
                int p = i;
                i = skipDigits(fmt, i);
                precision = i > p ? Integer.parseInt(fmt.substring(p, i)) : 0;
            }
            if (i < fmt.length() && isDigit(fmt.charAt(i))) {
                throw new LuaError("invalid format (width or precision too long)");
            }
            char conv = i < fmt.length() ? fmt.charAt(i++) : '\0';
            Spec spec = new Spec(flags, width, precision);
            switch (conv) {
                case 'c':
                    out.append(spec.pad(String.valueOf((char) (((int) number(args, arg)) & 0xff)), false));
                    break;
                case 'd':
                case 'i':
                    out.append(integer(spec, (long) number(args, arg), true, 10, false));
                    break;
                case 'u':
                    out.append(integer(spec, (long) number(args, arg), false, 10, false));
                    break;
                case 'o':
                    out.append(integer(spec, (long) number(args, arg), false, 8, false));
                    break;
                case 'x':
                case 'X':
                    out.append(integer(spec, (long) number(args, arg), false, 16, conv == 'X'));
                    break;
                case 'e':
                case 'E':
                case 'f':
                case 'g':
                case 'G':
                    out.append(floating(spec, number(args, arg), conv));
                    break;
                case 'q':
                    quoted(out, string(args, arg));
                    break;
                case 's': {
                    String s = string(args, arg);
                    if (precision < 0 && s.length() >= 100) {
                        out.append(s); // as Lua: too long to format, kept whole
                    } else {
                        out.append(spec.pad(
                                precision >= 0 && precision < s.length() ? s.substring(0, precision) : s, false));
                    }
                    break;
                }
                default:
                    throw new LuaError("invalid option '%" + conv + "' to 'format'");
            }
        }
        return LuaValue.valueOf(out.toString());
    }

    /** Flags, width and precision of one item (precision -1: none). */
    private record Spec(String flags, int width, int precision) {

        boolean has(char flag) {
            return flags.indexOf(flag) >= 0;
        }

        /** Pads {@code body} (sign and prefix included) to the width; zeros go after the sign and prefix. */
        String pad(String body, boolean zeros) {
            if (body.length() >= width) {
                return body;
            }
            int fill = width - body.length();
            if (has('-')) {
                return body + " ".repeat(fill);
            }
            if (zeros && has('0')) {
                int after = 0;
                if (!body.isEmpty() && "+- ".indexOf(body.charAt(0)) >= 0) {
                    after = 1;
                }
                if (body.startsWith("0x", after) || body.startsWith("0X", after)) {
                    after += 2;
                }
                return body.substring(0, after) + "0".repeat(fill) + body.substring(after);
            }
            return " ".repeat(fill) + body;
        }
    }

    private static String integer(Spec spec, long v, boolean signed, int radix, boolean upper) {
        boolean negative = signed && v < 0;
        String digits = signed ? Long.toString(Math.abs(v)) : Long.toUnsignedString(v, radix);
        if (signed && v == Long.MIN_VALUE) {
            digits = "9223372036854775808";
        }
        if (upper) {
            digits = digits.toUpperCase(java.util.Locale.ROOT);
        }
        if (spec.precision() == 0 && v == 0) {
            digits = "";
        }
        if (spec.precision() > digits.length()) {
            digits = "0".repeat(spec.precision() - digits.length()) + digits;
        }
        String prefix = "";
        if (negative) {
            prefix = "-";
        } else if (signed && spec.has('+')) {
            prefix = "+";
        } else if (signed && spec.has(' ')) {
            prefix = " ";
        }
        if (spec.has('#') && radix == 8 && !digits.startsWith("0")) {
            digits = "0" + digits;
        }
        if (spec.has('#') && radix == 16 && v != 0) {
            prefix = upper ? "0X" : "0x";
        }
        // With a precision, the 0 flag is ignored for integers.
        return spec.pad(prefix + digits, spec.precision() < 0);
    }

    private static String floating(Spec spec, double v, char conv) {
        boolean upper = conv == 'E' || conv == 'G';
        boolean negative = v < 0 || (v == 0 && 1 / v < 0);
        String sign = negative ? "-" : spec.has('+') ? "+" : spec.has(' ') ? " " : "";
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            String word = Double.isNaN(v) ? "nan" : "inf";
            return spec.pad(sign + (upper ? word.toUpperCase(java.util.Locale.ROOT) : word), false);
        }
        int precision = spec.precision() < 0 ? 6 : spec.precision();
        if (conv == 'f' && precision == 0 && !spec.has('#') && v == Math.rint(v) && Math.abs(v) < 1e15) {
            // The scripts' '%.0f' of a whole number of milliseconds: its digits, as sprintf writes them.
            return spec.pad(sign + Long.toString(Math.abs((long) v)), true);
        }
        BigDecimal x = new BigDecimal(v).abs();
        String body;
        switch (conv) {
            case 'f':
                body = fixed(x, precision, spec.has('#'));
                break;
            case 'e':
            case 'E':
                body = scientific(x, precision, spec.has('#'), upper);
                break;
            default: {
                int p = precision == 0 ? 1 : precision;
                int exponent = x.signum() == 0 ? 0 : exponent(x.round(new MathContext(p, RoundingMode.HALF_EVEN)));
                body = exponent < p && exponent >= -4
                        ? fixed(x, p - 1 - exponent, spec.has('#'))
                        : scientific(x, p - 1, spec.has('#'), upper);
                if (!spec.has('#')) {
                    body = trimZeros(body);
                }
                break;
            }
        }
        return spec.pad(sign + body, true);
    }

    private static int exponent(BigDecimal rounded) {
        return rounded.precision() - rounded.scale() - 1;
    }

    private static String fixed(BigDecimal x, int decimals, boolean point) {
        String s = x.setScale(decimals, RoundingMode.HALF_EVEN).toPlainString();
        return point && decimals == 0 ? s + "." : s;
    }

    private static String scientific(BigDecimal x, int decimals, boolean point, boolean upper) {
        int exponent = 0;
        String digits;
        if (x.signum() == 0) {
            digits = "0".repeat(decimals + 1);
        } else {
            BigDecimal r = x.round(new MathContext(decimals + 1, RoundingMode.HALF_EVEN));
            exponent = exponent(r);
            digits = r.unscaledValue().toString();
            digits = digits.length() > decimals + 1
                    ? digits.substring(0, decimals + 1)
                    : digits + "0".repeat(decimals + 1 - digits.length());
        }
        StringBuilder b = new StringBuilder().append(digits.charAt(0));
        if (decimals > 0 || point) {
            b.append('.');
        }
        b.append(digits, 1, digits.length()).append(upper ? 'E' : 'e').append(exponent < 0 ? '-' : '+');
        int magnitude = Math.abs(exponent);
        if (magnitude < 10) {
            b.append('0');
        }
        return b.append(magnitude).toString();
    }

    /** %g without '#': trailing zeros of the fraction go, and the point if nothing follows it. */
    private static String trimZeros(String body) {
        int e = Math.max(body.indexOf('e'), body.indexOf('E'));
        String mantissa = e < 0 ? body : body.substring(0, e);
        String rest = e < 0 ? "" : body.substring(e);
        if (mantissa.indexOf('.') >= 0) {
            mantissa = mantissa.replaceAll("0+$", "");
            if (mantissa.endsWith(".")) {
                mantissa = mantissa.substring(0, mantissa.length() - 1);
            }
        }
        return mantissa + rest;
    }

    private static void quoted(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"':
                case '\\':
                case '\n':
                    out.append('\\').append(c);
                    break;
                case '\r':
                    out.append("\\r");
                    break;
                case '\0':
                    out.append("\\000");
                    break;
                default:
                    out.append(c);
                    break;
            }
        }
        out.append('"');
    }

    private static double number(Varargs args, int arg) {
        LuaValue v = args.arg(arg);
        LuaValue n = v.tonumber();
        if (n.isnil()) {
            throw new LuaError("bad argument #" + arg + " to 'format' (number expected, got " + v.typename() + ")");
        }
        return n.todouble();
    }

    /** A string argument; a number becomes text as Lua 5.1 writes it ("%.14g"). */
    private static String string(Varargs args, int arg) {
        LuaValue v = args.arg(arg);
        if (v.type() == LuaValue.TNUMBER) {
            return floating(new Spec("", 0, 14), v.todouble(), 'g');
        }
        if (!v.isstring()) {
            throw new LuaError("bad argument #" + arg + " to 'format' (string expected, got " + v.typename() + ")");
        }
        return v.tojstring();
    }

    private static int skipDigits(String s, int i) {
        int end = Math.min(s.length(), i + 2);
        while (i < end && isDigit(s.charAt(i))) {
            i++;
        }
        return i;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
