/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.cli.chaos;

import dev.redlock.chaos.LockWorkload;
import dev.redlock.chaos.Nemesis;
import dev.redlock.chaos.cluster.ChaosCluster;
import dev.redlock.chaos.history.CheckResult;
import dev.redlock.chaos.history.Checker;
import dev.redlock.chaos.history.FencingChecker;
import dev.redlock.chaos.history.History;
import dev.redlock.chaos.history.LostLeaseChecker;
import dev.redlock.chaos.history.LostUpdateChecker;
import dev.redlock.chaos.history.MutualExclusionChecker;
import dev.redlock.cli.DurationConverter;
import dev.redlock.cli.ExitCodes;
import dev.redlock.cli.Json;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code redlock chaos}: starts local Redis masters, runs a chaos scenario against a contended workload with a live
 * progress line, prints the checkers' verdicts and writes a report (history, timeline picture, HTML page).
 */
@Command(
        name = "chaos",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Run a fault-injection scenario against local nodes and draw its timeline.",
            "",
            "Start local redis-server masters (the bundled Redis 7.0.15, or $REDLOCK_REDIS_SERVER), run a "
                    + "fault scenario against clients contending for one lock, and check the recorded history: mutual "
                    + "exclusion, lost leases, lost updates, fencing. Writes history.jsonl, report.json, timeline.png "
                    + "and timeline.html to --out. Redis working files go under ./target/.",
            ""
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:no checker found a violation",
            "1:a checker found a violation",
            "64:bad arguments",
            "70:the run could not be carried out (a node failed to start, a client crashed)"
        })
public final class ChaosCommand implements Callable<Integer> {

    /** How many fault steps the text report lists; report.json and timeline.html have them all. */
    private static final int MAX_STEPS_SHOWN = 20;

    @Option(names = "--list", description = "List the scenarios and exit.")
    boolean list;

    @Option(
            names = "--scenario",
            paramLabel = "NAME",
            defaultValue = Scenarios.DEFAULT,
            description = "The scenario (default: ${DEFAULT-VALUE}); see --list.")
    String scenario;

    @Option(
            names = "--seed",
            paramLabel = "N",
            description =
                    "The seed of the fault schedule and the clients' " + "work times (default: a random one, printed).")
    Long seed;

    @Option(
            names = "--duration",
            paramLabel = "DURATION",
            converter = DurationConverter.ChaosDuration.class,
            defaultValue = "60s",
            description = "How long the workload runs, 2s to 1h (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(
            names = "--nodes",
            paramLabel = "N",
            defaultValue = "5",
            description = "How many local masters to start, 3 to 9 (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(
            names = "--clients",
            paramLabel = "N",
            defaultValue = "4",
            description = "How many contending clients, 1 to 8 (default: ${DEFAULT-VALUE}).")
    int clients;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            defaultValue = "chaos-report",
            description = "Where the report is written (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(
            names = "--json",
            description = "Print the summary and verdicts as one JSON object on standard output; "
                    + "the progress line stays on standard error.")
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Creates the command; picocli fills it in. */
    public ChaosCommand() {}

    /**
     * Runs the scenario, or lists the scenarios.
     *
     * @return {@link ExitCodes#OK} when no checker found a violation, {@link ExitCodes#FINDINGS} otherwise
     * @throws Exception if the run cannot be carried out
     */
    @Override
    public Integer call() throws Exception {
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (list) {
            return list(stdout);
        }
        Scenario chosen = Scenarios.named(scenario)
                .orElseThrow(() -> new CommandLine.ParameterException(
                        spec.commandLine(),
                        "Invalid value for option '--scenario': '" + scenario + "' is not a scenario; "
                                + "allowed values: " + String.join(", ", Scenarios.names())));
        check(nodes >= 3 && nodes <= 9, "--nodes", nodes + " is outside 3 to 9");
        check(clients >= 1 && clients <= 8, "--clients", clients + " is outside 1 to 8");
        prepareOut();
        long runSeed = seed != null ? seed : new SecureRandom().nextLong();
        err.printf(
                "redlock chaos: scenario %s, seed %d, %d nodes, %d clients, %d s (replay with --scenario %s "
                        + "--seed %d)%n",
                chosen.name(), runSeed, nodes, clients, duration.toSeconds(), chosen.name(), runSeed);
        err.flush();

        Random random = new Random(runSeed);
        History history = new History();
        LockWorkload.Settings settings = new LockWorkload.Settings()
                .clients(clients)
                .duration(duration)
                .leaseTime(Duration.ofSeconds(1))
                .maxWork(Duration.ofMillis(150))
                .wait(Duration.ofMillis(400))
                .lock("chaos");
        LockWorkload.Result result;
        long origin;
        long end;
        Nemesis nemesis = new Nemesis();
        List<Report.Node> nodeList = new ArrayList<>();
        try (ChaosCluster cluster = ChaosCluster.start(nodes, chosen.options())) {
            for (int i = 0; i < cluster.size(); i++) {
                nodeList.add(new Report.Node(
                        i,
                        cluster.label(i),
                        cluster.server(i).port(),
                        URI.create(cluster.uris().get(i)).getPort()));
            }
            chosen.plan().plan(cluster, random, duration, nemesis, settings);
            cluster.onFault(history::add);
            origin = System.nanoTime();
            Progress progress = new Progress(history, origin, duration, err);
            progress.start();
            nemesis.start(origin);
            try {
                result = LockWorkload.run(cluster.uris(), settings, history, runSeed);
                nemesis.join(Duration.ofSeconds(30));
            } finally {
                nemesis.stop();
                progress.stop();
            }
            end = System.nanoTime();
            cluster.healAll();
        }
        if (!result.crashes().isEmpty()) {
            err.println("redlock chaos: workload clients crashed: " + result.crashes());
            return ExitCodes.SOFTWARE;
        }
        List<Checker> checkers = List.of(
                new MutualExclusionChecker(),
                new LostLeaseChecker(),
                new LostUpdateChecker(result.register()),
                new FencingChecker());
        List<CheckResult> verdicts = new ArrayList<>();
        for (Checker c : checkers) {
            verdicts.add(c.check(history));
        }
        History.Summary summary = history.summarize(verdicts);
        boolean valid = verdicts.stream().noneMatch(r -> r.validity() == CheckResult.Validity.INVALID);

        Report report = new Report(
                chosen,
                runSeed,
                List.copyOf(nodeList),
                clients,
                duration,
                summary,
                Report.NotAcquired.of(history),
                verdicts,
                nemesis);
        Map<String, Object> written = report.write(out, history, origin, end);
        if (json) {
            Json.println(stdout, written);
        } else {
            stdout.println("redlock chaos: " + chosen.name() + " seed " + runSeed + ": " + summary);
            stdout.println("  not acquired: " + report.notAcquired());
            stdout.println("  nodes: "
                    + String.join(
                            ", ",
                            nodeList.stream()
                                    .map(n -> n.label()
                                            + (n.clientPort() == n.port() ? "" : " via fault proxy :" + n.clientPort()))
                                    .toList()));
            List<Nemesis.Step> steps = nemesis.steps();
            stdout.println("  faults: " + (steps.isEmpty() ? "none" : steps.size() + " steps"));
            steps.stream()
                    .limit(MAX_STEPS_SHOWN)
                    .forEach(step -> stdout.printf(
                            Locale.ROOT, "    +%6d ms  %s%n", step.at().toMillis(), step.description()));
            if (steps.size() > MAX_STEPS_SHOWN) {
                stdout.println("    ... " + (steps.size() - MAX_STEPS_SHOWN) + " more in report.json");
            }
            for (CheckResult r : verdicts) {
                stdout.println("  " + r);
                r.violations().stream().limit(3).forEach(v -> stdout.println("      " + v));
            }
            stdout.println("report: " + out.resolve("timeline.html") + " (history.jsonl, report.json, timeline.png)");
            stdout.println(
                    valid
                            ? "OK: no violation"
                            : "VIOLATIONS FOUND"
                                    + (chosen.hazard()
                                            ? " (expected: this scenario runs outside Redlock's assumptions)"
                                            : ""));
            stdout.flush();
        }
        return valid ? ExitCodes.OK : ExitCodes.FINDINGS;
    }

    private int list(PrintWriter stdout) {
        if (json) {
            List<Map<String, Object>> all = new ArrayList<>();
            for (Scenario s : Scenarios.all()) {
                all.add(Map.of("name", s.name(), "description", s.description(), "hazard", s.hazard()));
            }
            Json.println(stdout, Map.of("scenarios", all));
        } else {
            int width =
                    Scenarios.names().stream().mapToInt(String::length).max().orElse(4);
            for (Scenario s : Scenarios.all()) {
                stdout.printf("%-" + width + "s  %s%n", s.name(), s.description());
            }
            stdout.flush();
        }
        return ExitCodes.OK;
    }

    /** Creates the report directory now, so that a run is not carried out for a report that cannot be written. */
    private void prepareOut() {
        try {
            Files.createDirectories(out);
        } catch (IOException | UnsupportedOperationException e) {
            String why = Files.exists(out) && !Files.isDirectory(out)
                    ? "it exists and is not a directory"
                    : "it cannot be created (" + e + ")";
            check(false, "--out", "'" + out + "': " + why);
        }
        check(Files.isWritable(out), "--out", "'" + out + "': the directory is not writable");
    }

    private void check(boolean ok, String option, String problem) {
        if (!ok) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "Invalid value for option '" + option + "': " + problem);
        }
    }

    /** The live progress line on standard error: elapsed time, operations, faults, violations so far. */
    private static final class Progress {

        private final History history;
        private final long origin;
        private final Duration duration;
        private final PrintWriter err;
        // On the JDKs this runs on (17 to 21), a console exists only when both streams are a terminal.
        @SuppressWarnings("SystemConsoleNull")
        private final boolean console = System.console() != null;

        private final CountDownLatch stopped = new CountDownLatch(1);
        private Thread thread;

        Progress(History history, long origin, Duration duration, PrintWriter err) {
            this.history = history;
            this.origin = origin;
            this.duration = duration;
            this.err = err;
        }

        void start() {
            thread = new Thread(this::loop, "redlock-chaos-progress");
            thread.setDaemon(true);
            thread.start();
        }

        private void loop() {
            long period = console ? 250 : 1_000;
            try {
                while (!stopped.await(period, TimeUnit.MILLISECONDS)) {
                    print(false);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            print(true);
        }

        private void print(boolean last) {
            double elapsed = Math.min((System.nanoTime() - origin) / 1e9, duration.toMillis() / 1e3);
            long ops = history.ops().size();
            long acquired = history.ops().stream()
                    .filter(o -> o.outcome() == dev.redlock.chaos.history.Op.Outcome.OK)
                    .count();
            int faults = history.events().size();
            int violations =
                    new MutualExclusionChecker().check(history).violations().size();
            String line = String.format(
                    Locale.ROOT,
                    "  %5.1f / %.0f s   ops %6d   acquired %6d   faults %3d   " + "violations %d",
                    elapsed,
                    duration.toMillis() / 1e3,
                    ops,
                    acquired,
                    faults,
                    violations);
            if (console) {
                err.print("\r" + line + (last ? System.lineSeparator() : ""));
            } else {
                err.println(line);
            }
            err.flush();
        }

        void stop() throws InterruptedException {
            stopped.countDown();
            thread.join(5_000);
        }
    }
}
