/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.bench;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/** Turns the {@link Results} of a comparison into Markdown tables (with ratios) and CSV. */
final class Report {

    /** An implementation as the report shows it. */
    record Impl(String id, String label, String settings, boolean inFaultPhase) {}

    static final String FLOOR = "floor";
    static final String REDISSON_REDLOCK = "redisson-redlock";
    static final String FANOUT_FLOOR = "floor-fanout-5";

    private final Machine machine;
    private final List<Impl> impls;
    private final Results results;
    private final Duration took;

    Report(Machine machine, List<Impl> impls, Results results, Duration took) {
        this.machine = machine;
        this.impls = List.copyOf(impls);
        this.results = results;
        this.took = took;
    }

    String markdown() {
        StringBuilder md = new StringBuilder();
        md.append("# Redlock comparison\n\n")
                .append(machine.markdown())
                .append(" The run took ")
                .append(took.toSeconds())
                .append(" s.\n\n")
                .append("Ratios: `xfloor` is the value divided by the floor's (raw Jedis on one node), `xR-RedLock` ")
                .append("divided by Redisson RedissonRedLock's. For latency and CPU lower is better, for throughput ")
                .append("higher is better. `-` means not measured or no sample.\n\n");

        md.append("## Single-thread latency (us)\n\n")
                .append("One thread, one key, `wait 0`, lease 10 s; ")
                .append(Compare.LATENCY_WARMUP_CYCLES)
                .append(" warm-up cycles, then ")
                .append(Compare.LATENCY_SAMPLES)
                .append(" samples.\n\n");
        table(md, new String[] {
            "implementation",
            "acquire p50",
            "acquire p99",
            "acquire p99.9",
            "acq+rel p50",
            "acq+rel p99",
            "acq+rel p99.9",
            "acq+rel p50 xfloor",
            "acq+rel p50 xR-RedLock"
        });
        for (Impl impl : impls) {
            String id = impl.id();
            row(
                    md,
                    impl.label(),
                    num(get(id, "latency", "acquire_p50")),
                    num(get(id, "latency", "acquire_p99")),
                    num(get(id, "latency", "acquire_p999")),
                    num(get(id, "latency", "cycle_p50")),
                    num(get(id, "latency", "cycle_p99")),
                    num(get(id, "latency", "cycle_p999")),
                    ratio(id, FLOOR, r -> get(r, "latency", "cycle_p50")),
                    ratio(id, REDISSON_REDLOCK, r -> get(r, "latency", "cycle_p50")));
        }

        md.append("\n## One worker\n\n")
                .append("One thread: cycles/s from the 1-thread throughput phase, with the JVM's CPU time and its ")
                .append("context switches (voluntary + involuntary, summed over its threads from /proc) per cycle ")
                .append("over that phase; acquire and cycle latency (us) from the single-thread latency phase. ")
                .append("`xfan-out` divides by the five-node fan-out floor's value.\n\n");
        table(md, new String[] {
            "implementation",
            "cycles/s",
            "xfan-out",
            "acquire p50",
            "acquire p99",
            "acquire p50 xfan-out",
            "cycle p50",
            "cycle p99",
            "CPU us/cycle",
            "ctx switches/cycle"
        });
        for (Impl impl : impls) {
            String id = impl.id();
            row(
                    md,
                    impl.label(),
                    num(get(id, "throughput_1t", "cycles_per_s")),
                    ratio(id, FANOUT_FLOOR, r -> get(r, "throughput_1t", "cycles_per_s")),
                    num(get(id, "latency", "acquire_p50")),
                    num(get(id, "latency", "acquire_p99")),
                    ratio(id, FANOUT_FLOOR, r -> get(r, "latency", "acquire_p50")),
                    num(get(id, "latency", "cycle_p50")),
                    num(get(id, "latency", "cycle_p99")),
                    num(get(id, "throughput_1t", "cpu_us_per_cycle")),
                    num(get(id, "throughput_1t", "ctx_switches_per_cycle")));
        }

        md.append("\n## Throughput (acquire+release cycles/s) and CPU\n\n")
                .append("A distinct key per thread, `wait 0`; ")
                .append(Compare.WARMUP.toSeconds())
                .append(" s warm-up, ")
                .append(Compare.MEASURE.toSeconds())
                .append(" s measured. CPU: JVM process ")
                .append("CPU time (all threads, not redis-server) over the ")
                .append(Compare.CPU_THREADS)
                .append("-thread measurement, per completed cycle.\n\n");
        table(md, new String[] {
            "implementation",
            "1 thread",
            "4 threads",
            "16 threads",
            "16 thr xfloor",
            "16 thr xR-RedLock",
            "CPU us/cycle @16",
            "CPU xfloor",
            "CPU xR-RedLock"
        });
        for (Impl impl : impls) {
            String id = impl.id();
            row(
                    md,
                    impl.label(),
                    num(get(id, "throughput_1t", "cycles_per_s")),
                    num(get(id, "throughput_4t", "cycles_per_s")),
                    num(get(id, "throughput_16t", "cycles_per_s")),
                    ratio(id, FLOOR, r -> get(r, "throughput_16t", "cycles_per_s")),
                    ratio(id, REDISSON_REDLOCK, r -> get(r, "throughput_16t", "cycles_per_s")),
                    num(get(id, "throughput_16t", "cpu_us_per_cycle")),
                    ratio(id, FLOOR, r -> get(r, "throughput_16t", "cpu_us_per_cycle")),
                    ratio(id, REDISSON_REDLOCK, r -> get(r, "throughput_16t", "cpu_us_per_cycle")));
        }

        md.append("\n## Contended: ")
                .append(Compare.CONTENDED_THREADS)
                .append(" threads, one key\n\n")
                .append("tryLock with a ")
                .append(Compare.CONTENDED_WAIT_MILLIS / 1000)
                .append(" s wait budget, ")
                .append("empty critical section; ")
                .append(Compare.WARMUP.toSeconds())
                .append(" s warm-up, ")
                .append(Compare.MEASURE.toSeconds())
                .append(" s measured. A thread may take the lock again right ")
                .append("after releasing it (barging); \"sections by a new holder\" is the share that went to another ")
                .append("thread. Hand-off, over those only: from the holder's release call to the return of the next ")
                .append("holder's acquire (System.nanoTime stamps).\n\n");
        table(md, new String[] {
            "implementation",
            "critical sections/s",
            "xfloor",
            "xR-RedLock",
            "sections by a new holder",
            "hand-off p50 (ms)",
            "hand-off p99 (ms)",
            "hand-off p50 xR-RedLock",
            "timed-out tryLocks"
        });
        for (Impl impl : impls) {
            String id = impl.id();
            double share = get(id, "contended", "new_holder_share");
            row(
                    md,
                    impl.label(),
                    num(get(id, "contended", "sections_per_s")),
                    ratio(id, FLOOR, r -> get(r, "contended", "sections_per_s")),
                    ratio(id, REDISSON_REDLOCK, r -> get(r, "contended", "sections_per_s")),
                    Double.isNaN(share) ? "-" : String.format(Locale.ROOT, "%.1f%%", share),
                    num(get(id, "contended", "handoff_p50")),
                    num(get(id, "contended", "handoff_p99")),
                    ratio(id, REDISSON_REDLOCK, r -> get(r, "contended", "handoff_p50")),
                    count(get(id, "contended", "timed_out")));
        }

        md.append("\n## One node of five healthy, stalled (SIGSTOP), then killed (SIGKILL)\n\n")
                .append("Node ")
                .append(Compare.FAULT_NODE + 1)
                .append(" of ")
                .append(Compare.NODES)
                .append("; one thread acquiring (`wait 0`) and releasing for the whole window; ")
                .append(Compare.FAULT_WARMUP.toSeconds())
                .append(" s warm-up, then ")
                .append(Compare.FAULT_MEASURE.toSeconds())
                .append(" s. Latencies in ms; a failed attempt is one ")
                .append("that returned false or threw. Release latency includes releases that threw. ")
                .append("`x healthy` compares with the same implementation's healthy row of this run.\n\n");
        table(md, new String[] {
            "implementation",
            "node 5",
            "acquired / attempts",
            "cycles/s",
            "cycles/s x healthy",
            "acquire p50",
            "acquire p99",
            "acquire p99 x healthy",
            "failed attempt p99",
            "release p50",
            "release p99",
            "outcome"
        });
        for (String state : Compare.FAULT_STATES) {
            for (Impl impl : impls) {
                if (!impl.inFaultPhase()) {
                    continue;
                }
                String id = impl.id();
                double attempts = get(id, state, "attempts");
                double acquired = get(id, state, "acquired");
                row(
                        md,
                        impl.label(),
                        state,
                        count(acquired) + " / " + count(attempts),
                        num(get(id, state, "cycles_per_s")),
                        times(get(id, state, "cycles_per_s"), get(id, "healthy", "cycles_per_s")),
                        num(get(id, state, "acquire_p50")),
                        num(get(id, state, "acquire_p99")),
                        times(get(id, state, "acquire_p99"), get(id, "healthy", "acquire_p99")),
                        num(get(id, state, "failed_acquire_p99")),
                        num(get(id, state, "release_p50")),
                        num(get(id, state, "release_p99")),
                        outcome(acquired, attempts, get(id, state, "errors")));
            }
        }

        md.append("\n## Settings\n\n");
        for (Impl impl : impls) {
            md.append("- **")
                    .append(impl.label())
                    .append("** (`")
                    .append(impl.id())
                    .append("`): ")
                    .append(impl.settings())
                    .append('\n');
        }
        md.append("- Lease 10 s everywhere (fixed, so neither our watchdog nor Redisson's runs); lock names are ")
                .append("distinct per implementation and phase.\n");

        md.append("\n## Errors and failed attempts\n\n");
        List<String[]> notes = results.notes();
        if (notes.isEmpty()) {
            md.append("None.\n");
        }
        for (String[] note : notes) {
            md.append("- ")
                    .append(labelOf(note[0]))
                    .append(", ")
                    .append(note[1])
                    .append(": ")
                    .append(note[2].replace("|", "\\|"))
                    .append('\n');
        }
        return md.toString();
    }

    String csv() {
        StringBuilder csv = new StringBuilder("implementation,label,phase,metric,value,unit,samples\n");
        for (Results.Row row : results.rows()) {
            csv.append(row.impl())
                    .append(',')
                    .append(quote(labelOf(row.impl())))
                    .append(',')
                    .append(row.phase())
                    .append(',')
                    .append(row.metric())
                    .append(',')
                    .append(Double.isNaN(row.value()) ? "" : String.format(Locale.ROOT, "%.3f", row.value()))
                    .append(',')
                    .append(row.unit())
                    .append(',')
                    .append(row.samples())
                    .append('\n');
        }
        return csv.toString();
    }

    private double get(String id, String phase, String metric) {
        return results.get(id, phase, metric);
    }

    private String ratio(String id, String reference, ToDoubleFunction<String> metric) {
        double value = metric.applyAsDouble(id);
        double ref = metric.applyAsDouble(reference);
        if (Double.isNaN(value) || Double.isNaN(ref) || ref == 0) {
            return "-";
        }
        double r = value / ref;
        // Small ratios keep two significant digits, so 0.0011 does not print as 0.00.
        return String.format(Locale.ROOT, r >= 0.1 ? "x%.2f" : "x%.2g", r);
    }

    /** {@code value / reference} as "x0.97", or "-" when either is missing. */
    static String times(double value, double reference) {
        if (Double.isNaN(value) || Double.isNaN(reference) || reference == 0) {
            return "-";
        }
        return String.format(Locale.ROOT, "x%.2f", value / reference);
    }

    private static String outcome(double acquired, double attempts, double errors) {
        if (Double.isNaN(attempts) || attempts == 0) {
            return "no attempt";
        }
        if (acquired == 0) {
            return "fails (every attempt)";
        }
        String base = acquired == attempts ? "acquires" : "acquires " + count(acquired) + " of " + count(attempts);
        return errors > 0 ? base + ", " + count(errors) + " errors" : base;
    }

    private String labelOf(String id) {
        return impls.stream()
                .filter(i -> i.id().equals(id))
                .map(Impl::label)
                .findFirst()
                .orElse(id);
    }

    static void table(StringBuilder md, String[] headers) {
        md.append('|');
        for (String header : headers) {
            md.append(' ').append(header).append(" |");
        }
        md.append("\n|");
        for (int i = 0; i < headers.length; i++) {
            md.append(i == 0 ? "---|" : "---:|");
        }
        md.append('\n');
    }

    static void row(StringBuilder md, String... cells) {
        md.append('|');
        for (String cell : cells) {
            md.append(' ').append(cell).append(" |");
        }
        md.append('\n');
    }

    static String num(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        if (v == 0) {
            return "0";
        }
        double a = Math.abs(v);
        String pattern = a >= 1000 ? "%,.0f" : a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3f";
        return String.format(Locale.ROOT, pattern, v);
    }

    /** A count as a whole number, or "-" when not measured. */
    static String count(double v) {
        return Double.isNaN(v) ? "-" : Long.toString(Math.round(v));
    }

    private static String quote(String s) {
        return '"' + s.replace("\"", "\"\"") + '"';
    }
}
