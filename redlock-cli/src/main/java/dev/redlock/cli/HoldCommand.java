/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.cli;

import dev.redlock.Lease;
import dev.redlock.LockLostException;
import dev.redlock.RedlockClient;
import dev.redlock.RedlockConfig;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code redlock hold}: takes a lock and keeps it until interrupted, printing its fencing token; for a maintenance
 * window held from a terminal, or a script that starts the holder in the background and stops it when done.
 */
@Command(
        name = "hold",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Take a lock and keep it until interrupted (Ctrl-C, SIGTERM), then release it.",
            "",
            "Prints the lease's fencing token on standard output once the lock is held (a shared lock has none: "
                    + "'-'), and with --json one JSON object instead. The client's watchdog extends the lease "
                    + "every third of --lease. If the lease is lost, redlock says so and exits 76.",
            ""
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:held, then released on SIGINT or SIGTERM",
            "64:bad arguments",
            "69:not enough nodes reachable for a quorum (or for a fencing token)",
            "75:the lock stayed busy for the whole --wait (or the --busy-exit status)",
            "76:the lease was lost while held"
        })
public final class HoldCommand implements Callable<Integer> {

    @Mixin
    NodeOptions nodes;

    @Mixin
    LockChoice lock;

    @Option(names = "--json", description = "Print JSON objects instead of text.")
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private final CountDownLatch done = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile boolean lost;
    private volatile boolean signalled;
    private volatile int status = ExitCodes.OK;
    private volatile boolean holding;
    private final Thread main = Thread.currentThread();

    /** Creates the command; picocli fills it in. */
    public HoldCommand() {}

    /**
     * Holds the lock until a signal or its loss.
     *
     * @return the exit status; see the class description
     * @throws Exception if an unexpected error occurs
     */
    @Override
    public Integer call() throws Exception {
        lock.validate();
        lock.fenced = !lock.shared; // the point of holding from the shell: a token to hand to what is protected
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        RedlockConfig config =
                nodes.config(b -> b.leaseTime(lock.lease).clientName(LockChoice.clientName("hold", null)));
        RedlockClient client;
        try {
            client = RedlockClient.create(config);
        } catch (IllegalArgumentException e) {
            throw NodeOptions.invalid(spec.commandLine(), e);
        }
        Thread hook = new Thread(this::onSignal, "redlock-hold-signal");
        Runtime.getRuntime().addShutdownHook(hook);
        Lease lease = null;
        try {
            LockChoice.Taken taken;
            try {
                taken = lock.take(client);
            } catch (InterruptedException e) {
                // A signal while trying: a lease won by the round in flight was given back.
                status = ExitCodes.SOFTWARE;
                return status;
            }
            if (taken.lease() == null) {
                err.println("redlock: " + Secrets.mask(taken.why()));
                err.flush();
                status = taken.exitCode();
                return status;
            }
            lease = taken.lease();
            holding = true;
            lease.onLost(this::onLost);
            String fencing = lease.fencingToken().isPresent()
                    ? Long.toString(lease.fencingToken().getAsLong())
                    : "-";
            if (json) {
                Map<String, Object> e = new LinkedHashMap<>();
                e.put("event", "held");
                e.put("name", lock.name);
                e.put(
                        "fencingToken",
                        lease.fencingToken().isPresent() ? lease.fencingToken().getAsLong() : null);
                e.put("token", ExecCommand.shortToken(lease.token()));
                e.put("validityMs", lease.remainingValidity().toMillis());
                Json.println(out, e);
            } else {
                out.println(fencing);
                out.flush();
                err.println("redlock: holding " + lock.describe()
                        + (lease.fencingToken().isPresent() ? " with fencing token " + fencing : "")
                        + "; interrupt (Ctrl-C) or send SIGTERM to release it");
                err.flush();
            }
            done.await();
            if (lost) {
                status = ExitCodes.LEASE_LOST;
                return status;
            }
            lease.release();
            if (json) {
                Json.println(out, Map.of("event", "released", "name", lock.name));
            } else {
                err.println("redlock: released " + lock.describe());
            }
            out.flush();
            err.flush();
            return status;
        } finally {
            client.close();
            released.countDown();
            if (!signalled) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // A signal arrived meanwhile: the hook ends the process.
                }
            }
        }
    }

    private void onLost(LockLostException e) {
        lost = true;
        PrintWriter err = spec.commandLine().getErr();
        if (json) {
            Json.println(
                    err,
                    Map.of(
                            "event",
                            "lost",
                            "name",
                            lock.name,
                            "reason",
                            e.reason().name()));
        } else {
            err.println("redlock: lease of " + lock.describe() + " lost (" + e.reason() + ")");
        }
        err.flush();
        done.countDown();
    }

    /** Shutdown hook: SIGINT or SIGTERM; the main thread releases, then the process ends with its status. */
    private void onSignal() {
        signalled = true;
        done.countDown();
        if (!holding) {
            main.interrupt(); // still trying: stop trying
        }
        try {
            if (released.await(15, TimeUnit.SECONDS)) {
                spec.commandLine().getOut().flush();
                spec.commandLine().getErr().flush();
                Runtime.getRuntime().halt(status);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
