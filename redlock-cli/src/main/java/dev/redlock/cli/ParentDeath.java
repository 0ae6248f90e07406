/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Makes a command die with {@code redlock}: on Linux, the command is started through {@code setpriv --pdeathsig KILL}
 * (util-linux), which asks the kernel to send it SIGKILL when its parent dies. Without it, a {@code redlock} killed by
 * SIGKILL or the out-of-memory killer would leave the command running without the lock, whose lease lapses after one
 * TTL. Only the command itself is covered; processes it starts are its own to stop. Where {@code setpriv} is missing
 * (not Linux, or a minimal image), the command is started as it is.
 */
final class ParentDeath {

    /** Where setpriv is found, or null. */
    private static final String SETPRIV = find();

    private ParentDeath() {}

    /** Whether commands are started so that they die with redlock. */
    static boolean available() {
        return SETPRIV != null;
    }

    /**
     * Returns the command line that runs {@code command} with the parent-death signal set, or {@code command} itself
     * where that is not available.
     */
    static List<String> wrap(List<String> command) {
        if (SETPRIV == null) {
            return command;
        }
        List<String> wrapped = new ArrayList<>(command.size() + 4);
        wrapped.add(SETPRIV);
        wrapped.add("--pdeathsig");
        wrapped.add("KILL");
        wrapped.add("--");
        wrapped.addAll(command);
        return wrapped;
    }

    /**
     * Looks the program up as the system would start it, because through setpriv a missing program no longer fails
     * the start itself: 127 and a message when it is not found, 126 when it is not executable, else 0.
     */
    static int check(String program, StringBuilder why) {
        if (SETPRIV == null) {
            return 0; // the start itself reports it
        }
        if (program.contains("/")) {
            Path p = Path.of(program);
            if (!Files.exists(p)) {
                why.append("error=2, No such file or directory");
                return ExitCodes.COMMAND_NOT_FOUND;
            }
            if (Files.isDirectory(p) || !Files.isExecutable(p)) {
                why.append("error=13, Permission denied");
                return ExitCodes.CANNOT_EXECUTE;
            }
            return 0;
        }
        String path = System.getenv("PATH");
        boolean seen = false;
        for (String dir : (path == null ? "/usr/bin:/bin" : path).split(":")) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, program);
            if (Files.isRegularFile(p)) {
                if (Files.isExecutable(p)) {
                    return 0;
                }
                seen = true;
            }
        }
        why.append(seen ? "error=13, Permission denied" : "error=2, No such file or directory");
        return seen ? ExitCodes.CANNOT_EXECUTE : ExitCodes.COMMAND_NOT_FOUND;
    }

    private static String find() {
        if (!System.getProperty("os.name", "")
                .toLowerCase(java.util.Locale.ROOT)
                .contains("linux")) {
            return null;
        }
        List<String> dirs = new ArrayList<>(List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin"));
        String path = System.getenv("PATH");
        if (path != null) {
            dirs.addAll(List.of(path.split(":")));
        }
        for (String dir : dirs) {
            if (!dir.isEmpty()) {
                Path p = Path.of(dir, "setpriv");
                if (Files.isExecutable(p)) {
                    return p.toString();
                }
            }
        }
        return null;
    }
}
