/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.bench;

import dev.redlock.Lease;
import dev.redlock.QuorumLock;
import dev.redlock.ReleaseResult;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Uncontended acquire+release cycles on distinct keys (one key per thread, {@code wait 0}, fixed 10 s lease) at 1, 4
 * and 16 threads, against {@code nodes} real redis-server masters, for a RedLock or a MultiLock. The score is cycles
 * per second over all threads.
 *
 * <p>Run from the repository root (every parameter combination, about 8 minutes):
 * <pre>
 * ./mvnw -q -pl redlock-bench -am package -DskipTests &amp;&amp; java -jar redlock-bench/target/benchmarks.jar UncontendedBenchmark
 * </pre>
 * One combination, quickly: {@code java -jar redlock-bench/target/benchmarks.jar UncontendedBenchmark.threads04
 * -p nodes=5 -p kind=RedLock -f 1 -wi 1 -i 1 -r 2s}. Add {@code -bm sample} for latency percentiles instead of
 * throughput.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 3)
@Fork(1)
public class UncontendedBenchmark {

    /** Number of redis-server masters. */
    @Param({"1", "3", "5"})
    public int nodes;

    /** {@code RedLock} (majority) or {@code MultiLock} (all nodes). */
    @Param({"RedLock", "MultiLock"})
    public String kind;

    private BenchCluster cluster;
    private final AtomicInteger keys = new AtomicInteger();

    /** Starts the masters and the client once per trial. */
    @Setup(Level.Trial)
    public void start() {
        cluster = BenchCluster.start(nodes);
    }

    /** Closes the client and stops the masters. */
    @TearDown(Level.Trial)
    public void stop() {
        cluster.close();
    }

    QuorumLock newLock() {
        return cluster.client().lock("uncontended-" + keys.incrementAndGet(), BenchCluster.policy(kind));
    }

    /** The lock of one benchmark thread: its own key, so threads never contend. */
    @State(Scope.Thread)
    public static class ThreadLock {
        QuorumLock lock;

        /**
         * Picks this thread's key.
         *
         * @param bench the shared fixture
         */
        @Setup(Level.Trial)
        public void pick(UncontendedBenchmark bench) {
            lock = bench.newLock();
        }
    }

    /**
     * One thread.
     *
     * @param t this thread's lock
     * @return the release result, so the work is not optimized away
     * @throws InterruptedException never in practice
     */
    @Benchmark
    @Threads(1)
    public ReleaseResult threads01(ThreadLock t) throws InterruptedException {
        return cycle(t.lock);
    }

    /**
     * Four threads.
     *
     * @param t this thread's lock
     * @return the release result, so the work is not optimized away
     * @throws InterruptedException never in practice
     */
    @Benchmark
    @Threads(4)
    public ReleaseResult threads04(ThreadLock t) throws InterruptedException {
        return cycle(t.lock);
    }

    /**
     * Sixteen threads.
     *
     * @param t this thread's lock
     * @return the release result, so the work is not optimized away
     * @throws InterruptedException never in practice
     */
    @Benchmark
    @Threads(16)
    public ReleaseResult threads16(ThreadLock t) throws InterruptedException {
        return cycle(t.lock);
    }

    private static ReleaseResult cycle(QuorumLock lock) throws InterruptedException {
        // A distinct key is never busy, so an empty result means the nodes failed: fail the benchmark loudly.
        Lease lease = lock.tryAcquire(Duration.ZERO, BenchCluster.LEASE)
                .orElseThrow(() -> new IllegalStateException("uncontended lock " + lock.name() + " was busy"));
        return lease.release();
    }
}
