/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.cli;

import picocli.CommandLine;

/**
 * Checks a lock name as given on the command line: not blank, and decoded. Outside a UTF-8 locale the JVM decodes
 * the bytes of a non-ASCII argument it cannot map to U+FFFD (the replacement character), so {@code deploy-é} and
 * {@code deploy-ü} would both become {@code deploy-\uFFFD\uFFFD}: one lock for two names, and another lock than a
 * UTF-8 process takes for either. Such a name is refused rather than used.
 */
public final class LockNameConverter implements CommandLine.ITypeConverter<String> {

    /** Creates the converter; picocli instantiates it. */
    public LockNameConverter() {}

    /**
     * Checks one name.
     *
     * @param value the name given on the command line
     * @return the name, unchanged
     * @throws CommandLine.TypeConversionException if the name is blank or contains U+FFFD
     */
    @Override
    public String convert(String value) {
        if (value.isBlank()) {
            throw new CommandLine.TypeConversionException(
                    "'" + value + "': a lock name must not be empty or only whitespace");
        }
        if (value.indexOf('\uFFFD') >= 0) {
            String charset = System.getProperty("sun.jnu.encoding", "unknown");
            throw new CommandLine.TypeConversionException("'" + value + "' could not be decoded: it contains U+FFFD "
                    + "(the replacement character), which is what Java makes of bytes that the locale's character set ("
                    + charset + ") cannot decode, so different names would become one lock; run redlock in a UTF-8 "
                    + "locale (for example LC_ALL=C.UTF-8)");
        }
        return value;
    }
}
