/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Keeps passwords of {@code redis://user:password@host} URIs out of everything the command prints. */
public final class Secrets {

    /** Where a Redis URI starts. */
    private static final Pattern SCHEME = Pattern.compile("(?i)rediss?(?:-sentinel|-cluster)?://");

    /** A user name that is shown before the masked password: no spaces, quotes, slashes or other URIs. */
    private static final Pattern PLAIN_USER = Pattern.compile("[^\\s'\"/@:]*");

    /** User info that is masked already ({@code ***} or {@code user:***}), left as it is. */
    private static final Pattern MASKED = Pattern.compile("(?:[^:\\s'\"/@]*:)?\\*\\*\\*");

    private Secrets() {}

    /**
     * Masks the password of every Redis URI in {@code text}: {@code redis://u:secret@h} becomes {@code redis://u:***@h}
     * and {@code redis://:secret@h} becomes {@code redis://:***@h}. A password may hold '/', '@' or spaces (a quoted
     * argument echoed back), so everything between the scheme and the last '@' before the next URI on the same line is
     * masked. When no '@' follows a URI before the next one, the next may be part of its password: both are masked up
     * to the next '@'. Text that is not a URI can be masked too; a password is never shown.
     *
     * @param text any text, or null
     * @return the text with passwords replaced by {@code ***}, or null for null
     */
    public static String mask(String text) {
        if (text == null) {
            return null;
        }
        StringBuilder out = new StringBuilder(text.length());
        int start = 0;
        while (start <= text.length()) {
            int end = start;
            while (end < text.length() && text.charAt(end) != '\n' && text.charAt(end) != '\r') {
                end++;
            }
            maskLine(text.substring(start, end), out);
            if (end == text.length()) {
                break;
            }
            out.append(text.charAt(end));
            start = end + 1;
        }
        return out.toString();
    }

    private static void maskLine(String line, StringBuilder out) {
        List<int[]> uris = new ArrayList<>(); // {start of the scheme, end of the scheme}
        Matcher m = SCHEME.matcher(line);
        while (m.find()) {
            uris.add(new int[] {m.start(), m.end()});
        }
        int copied = 0;
        int i = 0;
        while (i < uris.size()) {
            int infoStart = uris.get(i)[1];
            int at = -1;
            int j = i;
            for (; j < uris.size(); j++) {
                int spanEnd = j + 1 < uris.size() ? uris.get(j + 1)[0] : line.length();
                int last = line.lastIndexOf('@', spanEnd - 1);
                if (last >= uris.get(j)[1]) {
                    at = last;
                    break;
                }
            }
            if (at < 0) {
                break; // no '@' after this URI on the line: nothing to hide
            }
            out.append(line, copied, infoStart).append(maskInfo(line.substring(infoStart, at)));
            copied = at;
            i = j + 1;
        }
        out.append(line, copied, line.length());
    }

    private static String maskInfo(String info) {
        if (MASKED.matcher(info).matches()) {
            return info;
        }
        int colon = info.indexOf(':');
        if (colon < 0) {
            return "***";
        }
        String user = info.substring(0, colon);
        return PLAIN_USER.matcher(user).matches() && !SCHEME.matcher(info).find() ? user + ":***" : "***";
    }
}
