package dev.redlock.cli;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Keeps passwords of {@code redis://user:password@host} URIs out of everything the command prints. */
public final class Secrets {

    /** The user-info part of a URI: {@code scheme://[user][:password]@}. */
    private static final Pattern USER_INFO = Pattern.compile("(?i)(rediss?://)([^@/\\s]*)@");

    private Secrets() {}

    /**
     * Masks the password of every Redis URI in {@code text}: {@code redis://u:secret@h} becomes {@code redis://u:***@h}
     * and {@code redis://:secret@h} becomes {@code redis://:***@h}.
     *
     * @param text any text, or null
     * @return the text with passwords replaced by {@code ***}, or null for null
     */
    public static String mask(String text) {
        if (text == null) {
            return null;
        }
        Matcher m = USER_INFO.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String info = m.group(2);
            int colon = info.indexOf(':');
            String masked = colon < 0 ? "***" : info.substring(0, colon) + ":***";
            m.appendReplacement(out, Matcher.quoteReplacement(m.group(1) + masked + "@"));
        }
        m.appendTail(out);
        return out.toString();
    }
}
