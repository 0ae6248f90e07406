/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Who holds a lock, as the holder's client wrote it on the nodes: its host, process id and client name (see
 * {@link RedlockConfig.Builder#clientName(String)}), and, once the lease has been held for about a second, the thread
 * that asked for it and when it was handed out. Shown by {@link LockInfo#holderIdentity()}; what an operator needs to
 * find a process that will not let go, never a basis for a decision (the holder wrote it; a holder that shares a node
 * with others could write anything there).
 *
 * <p>A client writes its entry about every ten seconds, and the entry lives 30 seconds without being written again, so
 * a holder that died shows its identity for up to 30 seconds after, and a lease younger than about a second shows its
 * client without thread and start. Immutable and thread-safe.
 *
 * @param host the holder's host name, as its system names it
 * @param pid the holder's process id
 * @param clientName the name the holder's client gives itself
 * @param thread the name of the thread that asked for the lease; empty for a lease held less than about a second
 * @param since when the lease was handed out, by the holder's clock; empty as for {@code thread}
 */
public record HolderIdentity(
        String host, long pid, String clientName, Optional<String> thread, Optional<Instant> since) {

    /**
     * Checks the fields.
     *
     * @param host the holder's host name
     * @param pid the holder's process id
     * @param clientName the name the holder's client gives itself
     * @param thread the thread that asked for the lease, if known
     * @param since when the lease was handed out, if known
     * @throws NullPointerException if a field is null
     */
    public HolderIdentity {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(clientName, "clientName");
        Objects.requireNonNull(thread, "thread");
        Objects.requireNonNull(since, "since");
    }

    /**
     * Reads an entry as an inspection returns it: {host, pid, name, lease}, the lease being
     * {@code thread<TAB>since epoch ms}; each may be null.
     *
     * @param entry the four fields, or null
     * @return the identity, or empty when there is no entry or it cannot be read
     */
    static Optional<HolderIdentity> parse(String[] entry) {
        if (entry == null || entry.length != 4 || entry[0] == null || entry[1] == null) {
            return Optional.empty();
        }
        long pid;
        try {
            pid = Long.parseLong(entry[1]);
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        Optional<String> thread = Optional.empty();
        Optional<Instant> since = Optional.empty();
        String lease = entry[3];
        int tab = lease == null ? -1 : lease.lastIndexOf('\t');
        if (tab >= 0) {
            try {
                since = Optional.of(Instant.ofEpochMilli(Long.parseLong(lease.substring(tab + 1))));
                thread = Optional.of(lease.substring(0, tab));
            } catch (NumberFormatException e) {
                // A lease field not of this library's form: the client's identity alone.
            }
        }
        return Optional.of(new HolderIdentity(entry[0], pid, entry[2] == null ? "" : entry[2], thread, since));
    }

    /**
     * Returns the identity in one line, such as {@code host web-3, pid 4242 (orders.jar), thread "main" since
     * 2026-11-28T06:15:00Z}.
     *
     * @return a readable description
     */
    public String describe() {
        StringBuilder s =
                new StringBuilder("host ").append(host).append(", pid ").append(pid);
        if (!clientName.isEmpty()) {
            s.append(" (").append(clientName).append(')');
        }
        thread.ifPresent(t -> s.append(", thread \"").append(t).append('"'));
        since.ifPresent(t -> s.append(" since ").append(t));
        return s.toString();
    }
}
