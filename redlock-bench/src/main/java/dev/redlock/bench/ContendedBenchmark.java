/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.bench;

import dev.redlock.Lease;
import dev.redlock.QuorumLock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
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
 * Contention: 8 threads on one key, each calling {@code tryAcquire} with a 5 s wait budget and a fixed 10 s lease,
 * running an empty critical section and releasing. The secondary result {@code acquired} is critical sections per
 * second; {@code timedOut} counts tryAcquire calls whose wait budget ran out (per second).
 *
 * <p>Run from the repository root (every parameter combination, about 3 minutes):
 * <pre>
 * ./mvnw -q -pl redlock-bench -am package -DskipTests &amp;&amp; java -jar redlock-bench/target/benchmarks.jar ContendedBenchmark
 * </pre>
 * One combination, quickly: {@code java -jar redlock-bench/target/benchmarks.jar ContendedBenchmark -p nodes=5
 * -p kind=RedLock -f 1 -wi 1 -i 1 -r 2s}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 5)
@Fork(1)
@Threads(8)
public class ContendedBenchmark {

    /** Wait budget of each tryAcquire. */
    static final Duration WAIT = Duration.ofSeconds(5);

    /** Number of redis-server masters. */
    @Param({"1", "3", "5"})
    public int nodes;

    /** {@code RedLock} (majority) or {@code MultiLock} (all nodes). */
    @Param({"RedLock", "MultiLock"})
    public String kind;

    private BenchCluster cluster;
    private QuorumLock lock;

    /** Starts the masters and the client once per trial; all threads share one lock. */
    @Setup(Level.Trial)
    public void start() {
        cluster = BenchCluster.start(nodes);
        lock = cluster.client().lock("contended", BenchCluster.policy(kind));
    }

    /** Closes the client and stops the masters. */
    @TearDown(Level.Trial)
    public void stop() {
        cluster.close();
    }

    /** Per-thread outcome counters, reported by JMH as rates next to the primary score. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Outcomes {
        /** Critical sections entered. */
        public long acquired;
        /** tryAcquire calls whose wait budget ran out. */
        public long timedOut;

        /** JMH reports per iteration, so counting restarts with each. */
        @Setup(Level.Iteration)
        public void reset() {
            acquired = 0;
            timedOut = 0;
        }
    }

    /**
     * One tryAcquire with the wait budget, an empty critical section, one release.
     *
     * @param outcomes this thread's counters
     * @throws InterruptedException if JMH interrupts a waiting thread at the end of a run
     */
    @Benchmark
    public void criticalSection(Outcomes outcomes) throws InterruptedException {
        Optional<Lease> lease = lock.tryAcquire(WAIT, BenchCluster.LEASE);
        if (lease.isPresent()) {
            outcomes.acquired++;
            lease.get().release();
        } else {
            outcomes.timedOut++;
        }
    }
}
