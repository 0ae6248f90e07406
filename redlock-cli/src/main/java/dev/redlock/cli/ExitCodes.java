/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.cli;

/**
 * The exit statuses of the {@code redlock} command. {@code exec} otherwise exits with its child's own status (a child
 * ended by signal {@code N} gives {@code 128 + N}, as in a shell); the codes below are chosen from the
 * {@code sysexits.h} range so that they rarely collide with a child's.
 */
public final class ExitCodes {

    /** Success: the child exited 0, the topology is clean, or the chaos run found no violation. */
    public static final int OK = 0;

    /** {@code check}: the topology is unsafe; {@code chaos}: a checker found a violation. */
    public static final int FINDINGS = 1;

    /** Bad arguments: an unknown option, a malformed value, a missing command ({@code EX_USAGE}). */
    public static final int USAGE = 64;

    /** Not enough nodes reachable (or able to issue a fencing token) for a quorum ({@code EX_UNAVAILABLE}). */
    public static final int NOT_ENOUGH_NODES = 69;

    /** An unexpected internal error ({@code EX_SOFTWARE}). */
    public static final int SOFTWARE = 70;

    /** {@code exec}: the lock was not acquired within {@code --wait}; it stayed busy ({@code EX_TEMPFAIL}). */
    public static final int NOT_ACQUIRED = 75;

    /** {@code exec}: the lease was lost while the child ran; the child was stopped. */
    public static final int LEASE_LOST = 76;

    /** {@code exec}: the command was found but could not be started (as a shell reports it). */
    public static final int CANNOT_EXECUTE = 126;

    /** {@code exec}: the command was not found (as a shell reports it). */
    public static final int COMMAND_NOT_FOUND = 127;

    private ExitCodes() {}
}
