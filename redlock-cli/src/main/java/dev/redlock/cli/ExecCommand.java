/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.cli;

import dev.redlock.AcquireResult;
import dev.redlock.Lease;
import dev.redlock.LockLostException;
import dev.redlock.NodeOutcome;
import dev.redlock.RedlockClient;
import dev.redlock.RedlockConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code redlock exec}: acquires a RedLock, runs a command while the watchdog keeps the lease alive, stops the command
 * if the lease is lost, and releases the lock when the command exits.
 */
@Command(
        name = "exec",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Run a command while holding a lock, like flock(1) across independent Redis masters.",
            "",
            "The command gets REDLOCK_NAME, REDLOCK_TOKEN (the lease's owner token) and, with --fenced, "
                    + "REDLOCK_FENCING_TOKEN in its environment, and none of redlock's own variables "
                    + "(REDLOCK_NODES, REDLOCK_PASSWORD, REDLOCK_LOG, REDLOCK_CLI_JAR). The client's watchdog "
                    + "extends the lease every third of --lease. If the lease is lost, the command and every "
                    + "process it started get SIGTERM, then SIGKILL after --grace, and redlock exits 76. SIGINT or "
                    + "SIGTERM sent to redlock are passed on the same way. The lock is released when the command "
                    + "exits. On Linux, if redlock itself is killed (SIGKILL, out of memory), the command gets "
                    + "SIGKILL from the kernel (setpriv --pdeathsig), since nothing keeps its lease any more; "
                    + "processes the command started itself are not covered.",
            ""
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "N:the command's own status (128+N when ended by signal N)",
            "64:bad arguments",
            "69:not enough nodes reachable for a quorum (or for a fencing token)",
            "75:the lock stayed busy for the whole --wait (or the --busy-exit status)",
            "76:the lease was lost while the command ran; the command was stopped",
            "126:the command cannot be executed",
            "127:the command was not found"
        })
public final class ExecCommand implements Callable<Integer> {

    @Mixin
    NodeOptions nodes;

    @Mixin
    LockChoice lock;

    @Option(
            names = {"-c", "--command"},
            paramLabel = "STRING",
            description = "Run STRING with /bin/sh -c instead of CMD, as flock -c does.")
    String shellCommand;

    @Option(
            names = "--grace",
            paramLabel = "DURATION",
            converter = DurationConverter.Grace.class,
            defaultValue = "10s",
            description = "Time between SIGTERM and SIGKILL when the command must stop (0 to 1h; default: "
                    + "${DEFAULT-VALUE}).")
    Duration grace;

    @Option(
            names = "--json",
            description = "Report redlock's own events as JSON lines on standard error "
                    + "(standard output belongs to the command).")
    boolean json;

    @Parameters(
            arity = "0..*",
            paramLabel = "CMD",
            description = "The command and its arguments; put them after --. Give either CMD or -c.")
    List<String> command;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Creates the command; picocli fills it in. */
    public ExecCommand() {}

    /**
     * Runs the command under the lock.
     *
     * @return the exit status; see the class description
     * @throws Exception if an unexpected error occurs
     */
    @Override
    public Integer call() throws Exception {
        lock.validate();
        if (shellCommand != null && command != null && !command.isEmpty()) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "Give either -c STRING or a command after --, not both");
        }
        if (shellCommand == null && (command == null || command.isEmpty())) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "Missing the command to run: give it after -- (redlock exec -k NAME -- CMD ARGS...) or as -c "
                            + "'shell string'");
        }
        if (shellCommand != null) {
            command = List.of("/bin/sh", "-c", shellCommand);
        }
        RedlockConfig config = nodes.config(b -> b.leaseTime(lock.lease)
                .clientName(LockChoice.clientName("exec", shellCommand != null ? List.of("sh") : command)));
        Run run = new Run(config, spec.commandLine().getErr());
        Thread hook = new Thread(run::onSignal, "redlock-exec-signal");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return run.execute();
        } finally {
            run.finish();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // A signal arrived: the hook ends the process with the command's status.
            }
        }
    }

    /** One execution: the client, the lease, the child and who stops them. */
    private final class Run {

        private final RedlockConfig config;
        private final PrintWriter err;
        private final String name = lock.name;
        private final Thread main = Thread.currentThread();
        private final CountDownLatch finished = new CountDownLatch(1);
        private final ScheduledExecutorService killer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "redlock-exec-killer");
            t.setDaemon(true);
            return t;
        });
        private RedlockClient client;
        private Lease held;
        private Process child; // guarded by this
        private boolean stopping; // guarded by this
        private volatile boolean lost;
        private volatile boolean signalled;
        private volatile int status = -1;
        private final Set<ProcessHandle> tree = new LinkedHashSet<>(); // guarded by this

        Run(RedlockConfig config, PrintWriter err) {
            this.config = config;
            this.err = err;
        }

        int execute() throws IOException {
            try {
                client = RedlockClient.create(config);
            } catch (IllegalArgumentException e) {
                throw NodeOptions.invalid(spec.commandLine(), e);
            }
            LockChoice.Taken taken;
            try {
                taken = lock.take(client);
            } catch (InterruptedException e) {
                // A signal during acquisition: a lease won by the round in flight was released.
                event("interrupted", Map.of("name", name));
                return ExitCodes.SOFTWARE;
            }
            if (taken.lease() == null) {
                return notAcquired(taken);
            }
            held = taken.lease();
            Map<String, Object> acquired = new LinkedHashMap<>();
            acquired.put("name", name);
            acquired.put("token", shortToken(held.token()));
            held.fencingToken().ifPresent(t -> acquired.put("fencingToken", t));
            acquired.put("validityMs", held.remainingValidity().toMillis());
            event("acquired", acquired);
            held.onLost(this::onLost);
            synchronized (this) {
                if (lost || signalled) {
                    return lost ? ExitCodes.LEASE_LOST : ExitCodes.SOFTWARE;
                }
                ProcessBuilder pb = new ProcessBuilder(ParentDeath.wrap(command)).inheritIO();
                // The tool's own settings (nodes, password) are not the command's: it gets no secret it did not need.
                NodeOptions.OWN_VARIABLES.forEach(pb.environment()::remove);
                pb.environment().put("REDLOCK_NAME", name);
                pb.environment().put("REDLOCK_TOKEN", held.token());
                held.fencingToken().ifPresent(t -> pb.environment().put("REDLOCK_FENCING_TOKEN", Long.toString(t)));
                StringBuilder missing = new StringBuilder();
                int unusable = ParentDeath.check(command.get(0), missing);
                try {
                    if (unusable != 0) {
                        throw new IOException("Cannot run program \"" + command.get(0) + "\": " + missing);
                    }
                    child = pb.start();
                } catch (IOException e) {
                    String m = String.valueOf(e.getMessage());
                    int code = m.contains("error=2,") ? ExitCodes.COMMAND_NOT_FOUND : ExitCodes.CANNOT_EXECUTE;
                    message("cannot run " + command.get(0) + ": " + m);
                    event(
                            "not-started",
                            Map.of(
                                    "command",
                                    Secrets.mask(command.get(0)),
                                    "error",
                                    Secrets.mask(m),
                                    "exitCode",
                                    code));
                    return code;
                }
            }
            int exit = waitForChild();
            status = exit;
            Map<String, Object> exited = new LinkedHashMap<>();
            exited.put("name", name);
            exited.put("status", exit);
            exited.put("leaseLost", lost);
            int code = lost ? ExitCodes.LEASE_LOST : exit;
            exited.put("exitCode", code);
            event("exited", exited);
            status = code;
            return code;
        }

        private int waitForChild() {
            while (true) {
                try {
                    return child.waitFor();
                } catch (InterruptedException e) {
                    // Only the signal hook interrupts; it stops the child, whose exit ends this wait.
                    Thread.interrupted();
                }
            }
        }

        private int notAcquired(LockChoice.Taken taken) {
            int code = taken.exitCode();
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("name", name);
            AcquireResult result = taken.result();
            if (result != null) {
                e.put("reason", result.reason().name());
                e.put("rounds", result.rounds());
                e.put("nodes", nodeOutcomes(result.lastRound().nodes()));
            } else {
                e.put("reason", code == ExitCodes.NOT_ENOUGH_NODES ? "NOT_ENOUGH_NODES" : "BUSY");
            }
            e.put("exitCode", code);
            message(taken.why());
            event("not-acquired", e);
            return code;
        }

        private void onLost(LockLostException e) {
            lost = true;
            message("lease of '" + name + "' lost (" + e.reason() + "): stopping the command");
            event("lost", Map.of("name", name, "reason", e.reason().name()));
            stopChild();
        }

        /** SIGTERM to the child and every process it started, SIGKILL to those left after the grace period. */
        private synchronized void stopChild() {
            if (child == null || stopping) {
                stopping = true;
                return;
            }
            stopping = true;
            tree.add(child.toHandle());
            child.descendants().forEach(tree::add);
            tree.forEach(ProcessHandle::destroy);
            java.util.concurrent.Future<?> unused =
                    killer.schedule(this::killTree, grace.toNanos(), TimeUnit.NANOSECONDS);
        }

        private synchronized void killTree() {
            if (child != null) {
                child.descendants().forEach(tree::add);
            }
            for (ProcessHandle p : tree) {
                if (p.isAlive()) {
                    p.destroyForcibly();
                }
            }
        }

        /** Shutdown hook: SIGINT or SIGTERM reached redlock. */
        void onSignal() {
            if (finished.getCount() == 0) {
                return;
            }
            signalled = true;
            boolean started;
            synchronized (this) {
                started = child != null;
            }
            message("signal received: stopping the command and releasing '" + name + "'");
            if (started) {
                stopChild();
            } else {
                main.interrupt();
            }
            try {
                finished.await(grace.toMillis() + 10_000, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (started && status >= 0) {
                err.flush();
                Runtime.getRuntime().halt(status);
            }
            // Without a child the JVM exits with its own status for the signal (128 + N).
        }

        /** Releases the lease and closes everything; idempotent. */
        void finish() {
            if (finished.getCount() == 0) {
                return;
            }
            if (Thread.currentThread() == main) {
                Thread.interrupted(); // a signal's interrupt must not cut the release short
            }
            try {
                synchronized (this) {
                    if (child != null && child.isAlive()) {
                        stopping = false;
                        stopChild();
                    }
                }
                if (child != null) {
                    waitForChild();
                }
                if (held != null) {
                    held.release();
                }
            } finally {
                killer.shutdownNow();
                if (client != null) {
                    client.close();
                }
                finished.countDown();
            }
        }

        private void message(String text) {
            if (!json) {
                err.println("redlock: " + Secrets.mask(text));
                err.flush();
            }
        }

        private void event(String kind, Map<String, Object> fields) {
            if (json) {
                Map<String, Object> e = new LinkedHashMap<>();
                e.put("event", kind);
                e.putAll(fields);
                Json.println(err, e);
            }
        }
    }

    static String shortToken(String token) {
        return token.length() <= 8 ? token : token.substring(0, 8);
    }

    static List<Map<String, Object>> nodeOutcomes(List<NodeOutcome> outcomes) {
        List<Map<String, Object>> list = new ArrayList<>();
        for (NodeOutcome o : outcomes) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("node", Secrets.mask(o.node()));
            m.put("status", o.status().name());
            o.error().ifPresent(e -> m.put("error", Secrets.mask(String.valueOf(e.getMessage()))));
            list.add(m);
        }
        return list;
    }
}
