/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.cli;

import dev.redlock.cli.chaos.ChaosCommand;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code redlock} command: {@code exec} runs a command under a lock, {@code hold} keeps a lock until interrupted,
 * {@code status} shows who holds a lock, {@code unlock --force} deletes one,
 * {@code check} inspects the nodes' setup, and {@code chaos} runs a fault-injection scenario against local nodes. Every
 * command has {@code --help}; exit statuses are listed in {@link ExitCodes}.
 */
@Command(
        name = "redlock",
        mixinStandardHelpOptions = true,
        versionProvider = RedlockCli.Version.class,
        description = "Mutual exclusion across independent Redis masters (the Redlock algorithm) from the shell.",
        subcommands = {
            ExecCommand.class,
            HoldCommand.class,
            StatusCommand.class,
            UnlockCommand.class,
            CheckCommand.class,
            ChaosCommand.class,
            CommandLine.HelpCommand.class
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "0:success (exec: the command's own status passes through)",
            "1:check: unsafe topology; chaos: a checker found a violation",
            "64:bad arguments",
            "69:not enough nodes reachable for a quorum",
            "70:internal error",
            "75:exec, hold: lock not acquired within --wait (or the --busy-exit status)",
            "76:exec, hold: lease lost (exec stopped the command)",
            "126:exec: command cannot be executed",
            "127:exec: command not found"
        })
public final class RedlockCli implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Creates the top-level command; picocli fills it in. */
    public RedlockCli() {}

    /** Without a subcommand, prints the usage and fails as bad arguments. */
    @Override
    public void run() {
        throw new CommandLine.ParameterException(
                spec.commandLine(),
                "Missing command: use one of exec, hold, status, unlock, check, chaos (see redlock --help)");
    }

    /**
     * Builds the command line with the exit codes and error handling of the tool.
     *
     * @param out standard output
     * @param err standard error
     * @return the configured command line
     */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new RedlockCli());
        cl.setOut(out);
        cl.setErr(err);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        // An argument starting with '@' is a word like any other (a lock name, a command's argument such as curl's
        // -d @payload.json), never a file to read more arguments from.
        cl.setExpandAtFiles(false);
        // Everything after the command's first word belongs to it, options included: redlock exec ... ls -l
        cl.getSubcommands().get("exec").setStopAtPositional(true);
        // Short options may be clustered as with flock: -sn, -nE 3.
        cl.setPosixClusteredShortOptionsAllowed(true);
        cl.setExitCodeExceptionMapper(e -> ExitCodes.SOFTWARE);
        cl.setParameterExceptionHandler((error, args) -> {
            CommandLine c = error.getCommandLine();
            CommandLine.ParameterException ex = error;
            if (ex instanceof CommandLine.MissingParameterException
                    && !c.getUnmatchedArguments().isEmpty()) {
                // An unknown option comes first: "exec --ttl 5s --name x -- cmd" took "5s" for the command, so
                // --name was never seen; the unknown --ttl is the mistake to report.
                ex = new CommandLine.UnmatchedArgumentException(c, c.getUnmatchedArguments());
            }
            PrintWriter w = c.getErr();
            w.println("redlock: " + Secrets.mask(ex.getMessage()));
            if (!CommandLine.UnmatchedArgumentException.printSuggestions(ex, w)) {
                w.println("Try '" + c.getCommandSpec().qualifiedName() + " --help' for more information.");
            }
            w.flush();
            return ExitCodes.USAGE;
        });
        cl.setExecutionExceptionHandler((ex, c, parsed) -> {
            c.getErr().println("redlock: " + Secrets.mask(String.valueOf(ex)));
            c.getErr().flush();
            return ExitCodes.SOFTWARE;
        });
        return cl;
    }

    /**
     * Runs the command and exits with its status.
     *
     * @param args the command-line arguments
     */
    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            // The commands report what matters themselves; the client's own log (every failed round, every fault a
            // chaos run injects on purpose) is there on request: REDLOCK_LOG=warn, info or debug.
            String level = System.getenv("REDLOCK_LOG");
            System.setProperty(
                    "org.slf4j.simpleLogger.defaultLogLevel",
                    level == null || level.isBlank() ? "error" : level.trim());
        }
        System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
        System.setProperty("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
        PrintWriter out = new PrintWriter(
                new java.io.OutputStreamWriter(System.out, java.nio.charset.Charset.defaultCharset()), true);
        PrintWriter err = new PrintWriter(
                new java.io.OutputStreamWriter(System.err, java.nio.charset.Charset.defaultCharset()), true);
        // An exception that escapes a thread of ours (or of the client) is reported masked, like every other error.
        Thread.setDefaultUncaughtExceptionHandler((thread, e) -> {
            err.println(
                    "redlock: unexpected error in thread " + thread.getName() + ": " + Secrets.mask(String.valueOf(e)));
            err.flush();
        });
        int status = commandLine(out, err).execute(args);
        out.flush();
        err.flush();
        System.exit(status);
    }

    /** The version shown by {@code --version}: the jar's implementation version. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = RedlockCli.class.getPackage().getImplementationVersion();
            return new String[] {"redlock " + (v == null ? "(development build)" : v)};
        }
    }
}
