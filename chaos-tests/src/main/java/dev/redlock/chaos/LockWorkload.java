/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos;

import dev.redlock.AcquireResult;
import dev.redlock.Lease;
import dev.redlock.LockLostException;
import dev.redlock.NodeOutcome;
import dev.redlock.QuorumLock;
import dev.redlock.QuorumPolicy;
import dev.redlock.RedlockClient;
import dev.redlock.RedlockConfig;
import dev.redlock.chaos.history.History;
import dev.redlock.chaos.history.Op;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Contending clients, each with its own {@link RedlockClient} (its own connections, as separate processes would
 * have), taking one lock over and over from one or several threads each and recording every attempt in a
 * {@link History}. Release notifications are on, as in the client's default configuration: a waiter is woken by the
 * release of another client's lease (through the nodes) or of another thread's of its own client.
 *
 * <p>Inside each critical section the client checks its lease, reads a shared register, waits a random short time,
 * checks its lease again and writes the register back incremented: with a broken lock two holders interleave and an
 * update is lost, which {@link dev.redlock.chaos.history.LostUpdateChecker} sees at the end.
 */
public final class LockWorkload {

    /** What the clients do; mutable, built by a scenario before {@link #run}. */
    public static final class Settings {
        int clients = 4;
        int threads = 1;
        String lock = "chaos";
        QuorumPolicy policy = QuorumPolicy.MAJORITY;
        Duration leaseTime = Duration.ofSeconds(1);
        boolean autoExtend;
        Duration wait = Duration.ofMillis(300);
        Duration maxWork = Duration.ofMillis(2);
        Duration duration = Duration.ofSeconds(5);
        boolean fenced = true;
        Consumer<RedlockConfig.Builder> config = b -> {};
        dev.redlock.testkit.TlsCertificates tls;

        public Settings clients(int clients) {
            this.clients = clients;
            return this;
        }

        /** How many threads of each client take the lock, each one acquisition after another (default 1). */
        public Settings threads(int threads) {
            this.threads = threads;
            return this;
        }

        public Settings lock(String lock) {
            this.lock = lock;
            return this;
        }

        public Settings policy(QuorumPolicy policy) {
            this.policy = policy;
            return this;
        }

        /** Leases with this fixed lease time (the default, 1 s). */
        public Settings leaseTime(Duration leaseTime) {
            this.leaseTime = leaseTime;
            this.autoExtend = false;
            return this;
        }

        /** Auto-extended leases with this TTL. */
        public Settings autoExtended(Duration ttl) {
            this.leaseTime = ttl;
            this.autoExtend = true;
            return this;
        }

        public Settings wait(Duration wait) {
            this.wait = wait;
            return this;
        }

        public Settings maxWork(Duration maxWork) {
            this.maxWork = maxWork;
            return this;
        }

        public Settings duration(Duration duration) {
            this.duration = duration;
            return this;
        }

        /** Whether leases carry fencing tokens (the default), recorded in the history for the fencing checker. */
        public Settings fenced(boolean fenced) {
            this.fenced = fenced;
            return this;
        }

        /** Adjusts every client's configuration after the workload's defaults. */
        public Settings config(Consumer<RedlockConfig.Builder> config) {
            this.config = config;
            return this;
        }

        /** Every client trusts the given TLS certificates' authority (for a cluster of TLS-only nodes). */
        public Settings trusting(dev.redlock.testkit.TlsCertificates tls) {
            this.tls = tls;
            return this;
        }

        public Duration duration() {
            return duration;
        }

        public Duration leaseTime() {
            return leaseTime;
        }

        public String lock() {
            return lock;
        }
    }

    /** What the run left behind, beyond the history. */
    public record Result(long register, long maxRoundNanos, int staleReplies, List<Throwable> crashes) {}

    private LockWorkload() {}

    /**
     * The client configuration the workload starts from: short timeouts so faults show quickly. Restart quarantine
     * is off, because every scenario starts its masters moments before the run; the scenarios about restarts turn
     * it back on.
     */
    public static RedlockConfig.Builder baseConfig(List<String> uris) {
        return RedlockConfig.builder()
                .nodes(uris)
                .restartQuarantine(false)
                .perNodeTimeout(Duration.ofMillis(100))
                .connectTimeout(Duration.ofMillis(500))
                .retryDelay(Duration.ofMillis(10))
                .retryJitter(0.5)
                .circuitOpenDuration(Duration.ofMillis(200));
    }

    /**
     * Runs the clients for {@code settings.duration} and records every attempt.
     *
     * @param uris the node URIs
     * @param settings what the clients do
     * @param history where operations are recorded
     * @param seed drives the random work times, so a run's client behaviour replays with its seed
     * @return the final register value and what was seen on the way
     */
    public static Result run(List<String> uris, Settings settings, History history, long seed)
            throws InterruptedException {
        AtomicLong register = new AtomicLong();
        AtomicLong maxRound = new AtomicLong();
        AtomicInteger stale = new AtomicInteger();
        List<Throwable> crashes = java.util.Collections.synchronizedList(new ArrayList<>());
        long stopAt = System.nanoTime() + settings.duration.toNanos();
        List<Thread> threads = new ArrayList<>();
        List<RedlockClient> clients = new ArrayList<>();
        try {
            for (int id = 0; id < settings.clients; id++) {
                RedlockConfig.Builder b = baseConfig(uris).leaseTime(settings.leaseTime);
                if (settings.tls != null) {
                    b.tlsTrustStore(settings.tls.trustStore(), settings.tls.storePassword());
                }
                settings.config.accept(b);
                RedlockClient client = RedlockClient.create(b.build());
                clients.add(client);
                int clientId = id;
                for (int thread = 0; thread < settings.threads; thread++) {
                    // The first thread's work times are those a one-thread client had with the same seed.
                    Random random = new Random(thread == 0 ? seed * 31 + id : (seed * 31 + id) * 31 + thread);
                    Thread t = new Thread(
                            () -> {
                                try {
                                    QuorumLock lock = client.lock(settings.lock, settings.policy);
                                    loop(
                                            clientId,
                                            settings.fenced ? lock.fenced() : lock,
                                            settings,
                                            history,
                                            register,
                                            maxRound,
                                            stale,
                                            random,
                                            stopAt);
                                } catch (Throwable e) {
                                    crashes.add(e);
                                }
                            },
                            "chaos-client-" + id + (settings.threads > 1 ? "-" + thread : ""));
                    threads.add(t);
                }
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join(settings.duration.toMillis() + 60_000);
                if (t.isAlive()) {
                    crashes.add(new IllegalStateException(t.getName() + " did not stop"));
                    t.interrupt();
                }
            }
        } finally {
            clients.forEach(RedlockClient::close);
        }
        return new Result(register.get(), maxRound.get(), stale.get(), List.copyOf(crashes));
    }

    private static void loop(
            int id,
            QuorumLock lock,
            Settings s,
            History history,
            AtomicLong register,
            AtomicLong maxRound,
            AtomicInteger stale,
            Random random,
            long stopAt) {
        while (System.nanoTime() - stopAt < 0) {
            Op.Builder op = Op.builder().client(id).lock(s.lock).invokeNanos(System.nanoTime());
            AcquireResult r;
            try {
                r = s.autoExtend ? lock.attempt(s.wait) : lock.attempt(s.wait, s.leaseTime);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                history.add(op.completeNanos(System.nanoTime())
                        .outcome(Op.Outcome.UNKNOWN)
                        .failure(e.toString())
                        .build());
                continue;
            }
            op.completeNanos(System.nanoTime());
            maxRound.accumulateAndGet(r.lastRound().elapsed().toNanos(), Math::max);
            for (NodeOutcome o : r.lastRound().nodes()) {
                if (o.error()
                        .map(e -> String.valueOf(e.getMessage()).contains("unexpected reply"))
                        .orElse(false)) {
                    stale.incrementAndGet();
                }
            }
            if (!r.acquired()) {
                history.add(
                        op.outcome(Op.Outcome.FAIL).failure(r.reason().name()).build());
                continue;
            }
            Lease lease = r.lease().orElseThrow();
            AtomicLong lostAt = new AtomicLong(Op.NONE);
            lease.onLost(e -> lostAt.set(System.nanoTime()));
            op.outcome(Op.Outcome.OK).token(lease.token());
            lease.fencingToken().ifPresent(op::fencingToken);
            criticalSection(lease, op, register, random, s.maxWork);
            op.deadlineNanos(lease.deadlineNanos()).releaseNanos(System.nanoTime());
            lease.release();
            long lost = lostAt.get();
            if (lost == Op.NONE && lease.lossCause().isPresent()) {
                // Lost before the release, but the listener has not run yet: the deadline bounds it.
                lost = Math.min(lease.deadlineNanos(), System.nanoTime());
            }
            history.add(op.lostNanos(lost).build());
        }
    }

    private static void criticalSection(
            Lease lease, Op.Builder op, AtomicLong register, Random random, Duration maxWork) {
        try {
            lease.checkValid();
            long value = register.get();
            LockSupport.parkNanos((long) (random.nextDouble() * maxWork.toNanos()));
            lease.checkValid();
            long act = System.nanoTime();
            register.set(value + 1);
            op.actNanos(act).wrote(true);
        } catch (LockLostException e) {
            // The lease ran out before the write: the holder must not act, and does not.
            op.failure("lost before write: " + e.reason());
        }
    }
}
