/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.cli;

import dev.redlock.AcquireResult;
import dev.redlock.FailureReason;
import dev.redlock.Lease;
import dev.redlock.NotEnoughNodesException;
import dev.redlock.QuorumLock;
import dev.redlock.QuorumSemaphore;
import dev.redlock.RedlockClient;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Which lock {@code exec} and {@code hold} take, and how long they try: the lock's name, its mode (exclusive, shared,
 * or one of N permits), fencing, the wait and the lease, and the status that reports a busy lock. Short options follow
 * {@code flock(1)} where it has one ({@code -s -n -w -E}).
 */
public final class LockChoice {

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(
            names = {"-k", "--name"},
            required = true,
            paramLabel = "NAME",
            converter = LockNameConverter.class,
            description = "The lock's name: not blank; a non-ASCII name needs a UTF-8 locale.")
    String name;

    @Option(
            names = {"-s", "--shared"},
            description = "Take the lock shared (a read lock): any number of shared holders at once, none while "
                    + "an exclusive holder has it. Without it the lock is exclusive: the read-write lock's writer, "
                    + "which also excludes a library client's redLock(NAME).")
    boolean shared;

    @Option(
            names = {"-p", "--permits"},
            paramLabel = "N",
            description = "Take one of N permits of a semaphore named NAME: at most N holders at once "
                    + "(1 to 1024). Every user of the semaphore must give the same N.")
    Integer permits;

    @Option(
            names = {"-f", "--fenced"},
            description = "Issue a fencing token, strictly greater than every earlier one of this lock "
                    + "(not with --shared).")
    boolean fenced;

    @Option(
            names = {"-w", "--wait"},
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            defaultValue = "10s",
            description = "How long to try for the lock before giving up as busy; 0 tries once "
                    + "(up to 106751d; default: ${DEFAULT-VALUE}).")
    Duration wait;

    @Option(
            names = {"-n", "--nonblock"},
            description = "Try once and give up at once if the lock is busy (the same as --wait 0).")
    boolean nonblock;

    @Option(
            names = {"-l", "--lease"},
            paramLabel = "DURATION",
            converter = DurationConverter.Lease.class,
            defaultValue = "30s",
            description = "The TTL set on each node, extended by the watchdog every third of it while the lock is "
                    + "held; it bounds how long a crashed redlock keeps the lock (1ms to 7d; default: "
                    + "${DEFAULT-VALUE}).")
    Duration lease;

    @Option(
            names = {"-E", "--busy-exit"},
            paramLabel = "STATUS",
            defaultValue = "75",
            description = "The exit status when the lock stayed busy for the whole wait (1 to 255; default: "
                    + "${DEFAULT-VALUE}).")
    int busyExit;

    /** Creates the options; picocli fills them in. */
    public LockChoice() {}

    /** What taking the lock gave: a lease, or the exit status and a sentence saying why not. */
    record Taken(Lease lease, int exitCode, String why, AcquireResult result) {}

    /**
     * Checks the options against each other.
     *
     * @throws CommandLine.ParameterException naming the options that do not go together or are out of range
     */
    void validate() {
        CommandLine cl = spec.commandLine();
        if (busyExit < 1 || busyExit > 255) {
            throw new CommandLine.ParameterException(
                    cl, "Invalid value for option '--busy-exit': " + busyExit + " (allowed: 1 to 255)");
        }
        if (shared && permits != null) {
            throw new CommandLine.ParameterException(
                    cl, "--shared and --permits do not go together: a lock is either shared or counted");
        }
        if (shared && fenced) {
            throw new CommandLine.ParameterException(
                    cl,
                    "--shared and --fenced do not go together: shared holders carry no fencing token "
                            + "(exclusive holders of the same name do)");
        }
        if (permits != null && (permits < 1 || permits > QuorumSemaphore.MAX_PERMITS)) {
            throw new CommandLine.ParameterException(
                    cl,
                    "Invalid value for option '--permits': " + permits + " (allowed: 1 to "
                            + QuorumSemaphore.MAX_PERMITS + ")");
        }
    }

    /** The wait budget: zero with {@code --nonblock}. */
    Duration waitBudget() {
        return nonblock ? Duration.ZERO : wait;
    }

    /** How the lock is described in messages: {@code lock 'x'}, {@code shared lock 'x'}, {@code semaphore 'x'}. */
    String describe() {
        if (permits != null) {
            return "semaphore '" + name + "' (" + permits + " permits)";
        }
        return (shared ? "shared lock '" : "lock '") + name + "'";
    }

    /**
     * Takes the lock the options name, auto-extended by the client's watchdog.
     *
     * @param client the client
     * @return the lease, or why there is none with its exit status
     * @throws InterruptedException if interrupted while trying (a lease won meanwhile was given back)
     * @throws CommandLine.ParameterException if the library refuses the name
     */
    Taken take(RedlockClient client) throws InterruptedException {
        Duration budget = waitBudget();
        try {
            if (permits != null) {
                QuorumSemaphore semaphore = client.semaphore(name, permits);
                if (fenced) {
                    semaphore = semaphore.fenced();
                }
                Optional<Lease> lease;
                try {
                    lease = semaphore.tryAcquire(budget);
                } catch (NotEnoughNodesException e) {
                    return new Taken(null, ExitCodes.NOT_ENOUGH_NODES, e.getMessage(), null);
                }
                return lease.map(l -> new Taken(l, ExitCodes.OK, null, null))
                        .orElseGet(() -> new Taken(null, busyExit, busy(budget), null));
            }
            // Exclusive is the read-write lock's writer: it waits for shared holders to leave, and sets the same key as
            // redLock(NAME) in the library, so the two exclude each other too.
            QuorumLock lock = shared
                    ? client.readWriteLock(name).readLock()
                    : client.readWriteLock(name).writeLock();
            if (fenced) {
                lock = lock.fenced();
            }
            AcquireResult result = lock.attempt(budget);
            if (result.acquired()) {
                return new Taken(result.lease().orElseThrow(), ExitCodes.OK, null, result);
            }
            FailureReason reason = result.reason();
            if (reason == FailureReason.BUSY || reason == FailureReason.VALIDITY_EXHAUSTED) {
                return new Taken(null, busyExit, busy(budget), result);
            }
            return new Taken(
                    null,
                    ExitCodes.NOT_ENOUGH_NODES,
                    describe() + " not acquired: " + reason + "; last round: " + result.lastRound(),
                    result);
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "Invalid --name: " + e.getMessage());
        }
    }

    private String busy(Duration budget) {
        return describe() + " is busy: not acquired within " + budget.toMillis() + " ms";
    }

    /** The client name the holder shows in {@code redlock status}: the tool, its command and what it runs. */
    static String clientName(String command, List<String> what) {
        StringBuilder s = new StringBuilder("redlock ").append(command);
        if (what != null && !what.isEmpty()) {
            // The program only: its arguments may hold secrets, and the nodes show this name to anyone.
            String program = what.get(0);
            s.append(": ").append(program.substring(program.lastIndexOf('/') + 1));
        }
        String name = s.toString().replaceAll("\\p{Cntrl}", " ");
        return name.length() > 200 ? name.substring(0, 200) : name;
    }
}
