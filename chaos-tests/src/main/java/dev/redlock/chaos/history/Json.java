package dev.redlock.chaos.history;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The little JSON this package needs: writing flat objects whose values are strings, whole
 * numbers, booleans, nulls and arrays of strings, and reading exactly that back.
 *
 * <p>Hand-written because the chaos suite takes no third-party dependencies and the format is
 * tiny. It is not a general JSON parser: nested objects, arrays of anything but strings and
 * fractional numbers are rejected rather than half-understood.
 */
final class Json {

  private Json() {}

  /** Appends {@code s} as a JSON string literal, or {@code null} when {@code s} is null. */
  static void appendString(StringBuilder out, String s) {
    if (s == null) {
      out.append("null");
      return;
    }
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          // Every other control character must be escaped too, or the line is not valid JSON
          // (and a raw U+2028/2029 trips some JavaScript-based viewers, so escape those as well).
          if (c < 0x20 || c == '\u2028' || c == '\u2029') {
            out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  /**
   * Appends {@code "key":} to {@code out}, which holds an object being written, preceded by a comma
   * unless it is the object's first member.
   */
  static void appendKey(StringBuilder out, String key) {
    if (out.charAt(out.length() - 1) != '{') {
      out.append(',');
    }
    appendString(out, key);
    out.append(':');
  }

  /** Appends {@code items} as a JSON array of string literals. */
  static void appendStrings(StringBuilder out, List<String> items) {
    out.append('[');
    for (int i = 0; i < items.size(); i++) {
      if (i > 0) {
        out.append(',');
      }
      appendString(out, items.get(i));
    }
    out.append(']');
  }

  /** Appends a whole number, writing the {@link Op#NONE} sentinel as {@code null}. */
  static void appendNanos(StringBuilder out, long value) {
    // null reads better than -9223372036854775808 and survives tools that parse numbers as doubles.
    if (value == Long.MIN_VALUE) {
      out.append("null");
    } else {
      out.append(value);
    }
  }

  /**
   * Parses one flat JSON object. Values come back as {@link String}, {@link Long}, {@link Boolean},
   * {@code null} or, for an array of strings, an unmodifiable {@code List<String>}.
   *
   * @throws IllegalArgumentException when the text is not such an object
   */
  static Map<String, Object> parseObject(String text) {
    Parser p = new Parser(text);
    Map<String, Object> result = p.object();
    p.skipWhitespace();
    if (p.pos != text.length()) {
      throw p.error("trailing characters");
    }
    return result;
  }

  /** Reads a required whole-number member; {@code null} stands for {@link Long#MIN_VALUE}. */
  static long getLong(Map<String, Object> obj, String key) {
    Object v = require(obj, key);
    if (v == null) {
      return Long.MIN_VALUE;
    }
    if (v instanceof Long l) {
      return l;
    }
    throw new IllegalArgumentException("\"" + key + "\" is not a number: " + v);
  }

  /** Reads a required member that must be a number fitting in an {@code int}. */
  static int getInt(Map<String, Object> obj, String key) {
    Object v = require(obj, key);
    if (v instanceof Long l && l >= Integer.MIN_VALUE && l <= Integer.MAX_VALUE) {
      return (int) (long) l;
    }
    throw new IllegalArgumentException("\"" + key + "\" is not an int: " + v);
  }

  /** Reads a required member that must be a string or {@code null}. */
  static String getString(Map<String, Object> obj, String key) {
    Object v = require(obj, key);
    if (v == null || v instanceof String) {
      return (String) v;
    }
    throw new IllegalArgumentException("\"" + key + "\" is not a string: " + v);
  }

  /** Reads a required member that must be {@code true} or {@code false}. */
  static boolean getBoolean(Map<String, Object> obj, String key) {
    Object v = require(obj, key);
    if (v instanceof Boolean b) {
      return b;
    }
    throw new IllegalArgumentException("\"" + key + "\" is not a boolean: " + v);
  }

  /** Reads a required member that must be an array of strings (not null). */
  static List<String> getStrings(Map<String, Object> obj, String key) {
    Object v = require(obj, key);
    if (v instanceof List<?> list) {
      List<String> strings = new ArrayList<>(list.size());
      for (Object item : list) {
        strings.add((String) item); // the parser only builds lists of strings
      }
      return List.copyOf(strings);
    }
    throw new IllegalArgumentException("\"" + key + "\" is not an array of strings: " + v);
  }

  /**
   * Checks the optional {@code "type"} member and that there are no members other than {@code
   * allowed} (plus {@code "type"}), so a misspelt or foreign line fails loudly.
   */
  static void checkShape(Map<String, Object> obj, String type, String... allowed) {
    if (obj.containsKey("type") && !type.equals(obj.get("type"))) {
      throw new IllegalArgumentException(
          "expected \"type\":\"" + type + "\" but got " + obj.get("type"));
    }
    outer:
    for (String key : obj.keySet()) {
      if (key.equals("type")) {
        continue;
      }
      for (String a : allowed) {
        if (a.equals(key)) {
          continue outer;
        }
      }
      throw new IllegalArgumentException("unexpected member \"" + key + "\"");
    }
  }

  private static Object require(Map<String, Object> obj, String key) {
    if (!obj.containsKey(key)) {
      throw new IllegalArgumentException("missing member \"" + key + "\"");
    }
    return obj.get(key);
  }

  /** Recursive-descent reader over one line of text. */
  private static final class Parser {
    private final String s;
    private int pos;

    Parser(String s) {
      this.s = s;
    }

    Map<String, Object> object() {
      skipWhitespace();
      expect('{');
      // LinkedHashMap keeps the order and, unlike Map.of, allows null values.
      Map<String, Object> members = new LinkedHashMap<>();
      skipWhitespace();
      if (peek() == '}') {
        pos++;
        return members;
      }
      while (true) {
        skipWhitespace();
        String key = string();
        skipWhitespace();
        expect(':');
        skipWhitespace();
        Object value = value();
        if (members.containsKey(key)) {
          throw error("duplicate member \"" + key + "\"");
        }
        members.put(key, value);
        skipWhitespace();
        char c = next();
        if (c == '}') {
          return members;
        }
        if (c != ',') {
          throw error("expected ',' or '}'");
        }
      }
    }

    private Object value() {
      char c = peek();
      if (c == '"') {
        return string();
      }
      if (c == '[') {
        return strings();
      }
      if (c == '-' || (c >= '0' && c <= '9')) {
        return number();
      }
      if (s.startsWith("true", pos)) {
        pos += 4;
        return Boolean.TRUE;
      }
      if (s.startsWith("false", pos)) {
        pos += 5;
        return Boolean.FALSE;
      }
      if (s.startsWith("null", pos)) {
        pos += 4;
        return null;
      }
      throw error("unsupported value");
    }

    /** An array whose items are all strings; anything else in it is rejected. */
    private List<String> strings() {
      expect('[');
      List<String> items = new ArrayList<>();
      skipWhitespace();
      if (peek() == ']') {
        pos++;
        return List.copyOf(items);
      }
      while (true) {
        skipWhitespace();
        if (peek() != '"') {
          throw error("only arrays of strings are supported");
        }
        items.add(string());
        skipWhitespace();
        char c = next();
        if (c == ']') {
          return List.copyOf(items);
        }
        if (c != ',') {
          throw error("expected ',' or ']'");
        }
      }
    }

    private Long number() {
      int start = pos;
      if (peek() == '-') {
        pos++;
      }
      int digits = pos;
      while (pos < s.length() && s.charAt(pos) >= '0' && s.charAt(pos) <= '9') {
        pos++;
      }
      if (pos == digits) {
        throw error("expected digits");
      }
      if (pos < s.length() && (s.charAt(pos) == '.' || s.charAt(pos) == 'e' || s.charAt(pos) == 'E')) {
        throw error("only whole numbers are supported");
      }
      try {
        return Long.parseLong(s.substring(start, pos));
      } catch (NumberFormatException e) {
        throw error("number out of range");
      }
    }

    private String string() {
      expect('"');
      StringBuilder out = new StringBuilder();
      while (true) {
        char c = next();
        if (c == '"') {
          return out.toString();
        }
        if (c < 0x20) {
          throw error("raw control character in string");
        }
        if (c != '\\') {
          out.append(c);
          continue;
        }
        char e = next();
        switch (e) {
          case '"' -> out.append('"');
          case '\\' -> out.append('\\');
          case '/' -> out.append('/');
          case 'b' -> out.append('\b');
          case 'f' -> out.append('\f');
          case 'n' -> out.append('\n');
          case 'r' -> out.append('\r');
          case 't' -> out.append('\t');
          case 'u' -> {
            if (pos + 4 > s.length()) {
              throw error("truncated \\u escape");
            }
            try {
              // Surrogate pairs need no special care: each half is appended as the char it is.
              out.append((char) Integer.parseInt(s.substring(pos, pos + 4), 16));
            } catch (NumberFormatException ex) {
              throw error("bad \\u escape");
            }
            pos += 4;
          }
          default -> throw error("bad escape \\" + e);
        }
      }
    }

    void skipWhitespace() {
      while (pos < s.length()) {
        char c = s.charAt(pos);
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
          return;
        }
        pos++;
      }
    }

    private char peek() {
      if (pos >= s.length()) {
        throw error("unexpected end of input");
      }
      return s.charAt(pos);
    }

    private char next() {
      char c = peek();
      pos++;
      return c;
    }

    private void expect(char c) {
      if (next() != c) {
        pos--;
        throw error("expected '" + c + "'");
      }
    }

    IllegalArgumentException error(String what) {
      return new IllegalArgumentException("bad JSON at offset " + pos + ": " + what + ": " + s);
    }
  }
}
