/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos.soak;

import dev.redlock.AcquireResult;
import dev.redlock.Lease;
import dev.redlock.LockLostException;
import dev.redlock.QuorumLock;
import dev.redlock.RedlockClient;
import dev.redlock.RedlockConfig;
import dev.redlock.chaos.LockWorkload;
import dev.redlock.chaos.history.Op;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The soak's clients: several independent {@link RedlockClient}s (their own connections, as separate processes would
 * have), each with threads contending for a few shared fenced locks and threads taking fresh, uncontended locks, one
 * new name per acquisition. Every attempt is recorded as an {@link Op}.
 *
 * <p>Inside a shared lock's critical section the holder reads that lock's register, works a random short time, checks
 * its lease and writes the register back incremented, as {@link LockWorkload} does; a fresh lock's holder checks its
 * lease and acts. Between attempts each thread pauses a random think time, which keeps the load steady and the
 * history a manageable size over half an hour.
 */
public final class SoakWorkload {

    /** How the names of shared locks begin; the i-th is this followed by i. */
    public static final String SHARED = "soak:shared:";

    /** How the names of fresh locks begin. */
    public static final String FRESH = "soak:fresh:";

    /** What the clients do; mutable, set before {@link #run}. */
    public static final class Settings {
        int clients = 4;
        int sharedThreads = 2;
        int freshThreads = 1;
        int sharedLocks = 3;
        Duration leaseTime = Duration.ofSeconds(1);
        Duration wait = Duration.ofMillis(400);
        Duration maxWork = Duration.ofMillis(20);
        Duration sharedThink = Duration.ofMillis(40);
        Duration freshThink = Duration.ofMillis(60);
        Duration duration = Duration.ofMinutes(30);
        Consumer<RedlockConfig.Builder> config = b -> {};

        /** Creates the defaults: 4 clients, each with 2 threads on 3 shared locks and 1 thread on fresh locks. */
        public Settings() {}

        /**
         * Sets how many clients run.
         *
         * @param clients at least 1
         * @return these settings
         */
        public Settings clients(int clients) {
            this.clients = clients;
            return this;
        }

        /**
         * Sets how many threads of each client take shared locks, and how many take fresh ones.
         *
         * @param shared threads per client on the shared locks
         * @param fresh threads per client on fresh locks
         * @return these settings
         */
        public Settings threads(int shared, int fresh) {
            this.sharedThreads = shared;
            this.freshThreads = fresh;
            return this;
        }

        /**
         * Sets how many shared locks there are.
         *
         * @param sharedLocks at least 1
         * @return these settings
         */
        public Settings sharedLocks(int sharedLocks) {
            this.sharedLocks = sharedLocks;
            return this;
        }

        /**
         * Sets the lease time of every acquisition (default 1 s).
         *
         * @param leaseTime the TTL
         * @return these settings
         */
        public Settings leaseTime(Duration leaseTime) {
            this.leaseTime = leaseTime;
            return this;
        }

        /**
         * Sets how long the clients run.
         *
         * @param duration the run's length
         * @return these settings
         */
        public Settings duration(Duration duration) {
            this.duration = duration;
            return this;
        }

        /**
         * Adjusts every client's configuration after the workload's defaults ({@link LockWorkload#baseConfig}).
         *
         * @param config the adjustment
         * @return these settings
         */
        public Settings config(Consumer<RedlockConfig.Builder> config) {
            this.config = config;
            return this;
        }

        /**
         * Returns how many clients run.
         *
         * @return the clients
         */
        public int clients() {
            return clients;
        }

        /**
         * Returns how many shared locks there are.
         *
         * @return the shared locks
         */
        public int sharedLocks() {
            return sharedLocks;
        }

        /**
         * Returns how many threads in all take fresh locks.
         *
         * @return clients times fresh threads per client
         */
        public int freshThreadsInAll() {
            return clients * freshThreads;
        }

        /**
         * Returns the lease time.
         *
         * @return the TTL of every acquisition
         */
        public Duration leaseTime() {
            return leaseTime;
        }
    }

    /**
     * What the run left behind, beyond the history.
     *
     * @param registers each shared lock's register, by lock name
     * @param crashes what the client threads threw, if anything
     */
    public record Result(Map<String, Long> registers, List<Throwable> crashes) {}

    private final Settings settings;
    private final Consumer<Op> history;
    private final AtomicLong acquiredShared = new AtomicLong();
    private final AtomicLong acquiredFresh = new AtomicLong();

    /**
     * Creates the workload.
     *
     * @param settings what the clients do
     * @param history where every attempt is recorded, from many threads at once
     */
    public SoakWorkload(Settings settings, Consumer<Op> history) {
        this.settings = settings;
        this.history = history;
    }

    /**
     * Returns the shared locks' names.
     *
     * @return {@link #SHARED} followed by 0, 1, ...
     */
    public List<String> sharedNames() {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < settings.sharedLocks; i++) {
            names.add(SHARED + i);
        }
        return names;
    }

    /**
     * Returns the leases of shared locks so far.
     *
     * @return a count that grows while the workload runs
     */
    public long acquiredShared() {
        return acquiredShared.get();
    }

    /**
     * Returns the leases of fresh locks so far.
     *
     * @return a count that grows while the workload runs
     */
    public long acquiredFresh() {
        return acquiredFresh.get();
    }

    /**
     * Runs the clients for the settings' duration, recording every attempt, and closes them.
     *
     * @param uris the node URIs
     * @param seed drives the threads' choices of lock, work and think times
     * @return the registers and any crash
     * @throws InterruptedException if interrupted while waiting for the threads
     */
    public Result run(List<String> uris, long seed) throws InterruptedException {
        List<String> names = sharedNames();
        AtomicLongArray registers = new AtomicLongArray(names.size());
        List<Throwable> crashes = Collections.synchronizedList(new ArrayList<>());
        long stopAt = System.nanoTime() + settings.duration.toNanos();
        List<Thread> threads = new ArrayList<>();
        List<RedlockClient> clients = new ArrayList<>();
        try {
            for (int id = 0; id < settings.clients; id++) {
                RedlockConfig.Builder b = LockWorkload.baseConfig(uris).leaseTime(settings.leaseTime);
                settings.config.accept(b);
                RedlockClient client = RedlockClient.create(b.build());
                clients.add(client);
                int clientId = id;
                for (int t = 0; t < settings.sharedThreads + settings.freshThreads; t++) {
                    boolean shared = t < settings.sharedThreads;
                    Random random = new Random((seed * 31 + id) * 31 + t);
                    int thread = t;
                    Runnable body = shared
                            ? () -> shared(clientId, client, names, registers, random, stopAt)
                            : () -> fresh(clientId, thread, client, random, stopAt);
                    threads.add(new Thread(
                            () -> {
                                try {
                                    body.run();
                                } catch (Throwable e) {
                                    crashes.add(e);
                                }
                            },
                            "soak-client-" + id + "-" + (shared ? "shared-" : "fresh-") + t));
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
        Map<String, Long> values = new LinkedHashMap<>();
        for (int i = 0; i < names.size(); i++) {
            values.put(names.get(i), registers.get(i));
        }
        return new Result(values, List.copyOf(crashes));
    }

    private void shared(
            int id, RedlockClient client, List<String> names, AtomicLongArray registers, Random random, long stopAt) {
        List<QuorumLock> locks = new ArrayList<>();
        for (String name : names) {
            locks.add(client.redLock(name).fenced());
        }
        while (System.nanoTime() - stopAt < 0) {
            int i = random.nextInt(locks.size());
            if (attempt(id, locks.get(i), true, registers, i, random)) {
                acquiredShared.incrementAndGet();
            }
            park(random, settings.sharedThink);
        }
    }

    private void fresh(int id, int thread, RedlockClient client, Random random, long stopAt) {
        long n = 0;
        while (System.nanoTime() - stopAt < 0) {
            QuorumLock lock = client.redLock(FRESH + id + ":" + thread + ":" + n++);
            if (attempt(id, lock, false, null, -1, random)) {
                acquiredFresh.incrementAndGet();
            }
            park(random, settings.freshThink);
        }
    }

    /** One attempt, recorded; true if it acquired the lock. */
    private boolean attempt(
            int id, QuorumLock lock, boolean shared, AtomicLongArray registers, int register, Random random) {
        Op.Builder op = Op.builder().client(id).lock(lock.name()).invokeNanos(System.nanoTime());
        AcquireResult r;
        try {
            r = lock.attempt(settings.wait, settings.leaseTime);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (RuntimeException e) {
            history.accept(op.completeNanos(System.nanoTime())
                    .outcome(Op.Outcome.UNKNOWN)
                    .failure(e.toString())
                    .build());
            return false;
        }
        op.completeNanos(System.nanoTime());
        if (!r.acquired()) {
            history.accept(
                    op.outcome(Op.Outcome.FAIL).failure(r.reason().name()).build());
            return false;
        }
        Lease lease = r.lease().orElseThrow();
        AtomicLong lostAt = new AtomicLong(Op.NONE);
        lease.onLost(e -> lostAt.set(System.nanoTime()));
        op.outcome(Op.Outcome.OK).token(lease.token());
        lease.fencingToken().ifPresent(op::fencingToken);
        try {
            lease.checkValid();
            long value = shared ? registers.get(register) : 0;
            LockSupport.parkNanos((long) (random.nextDouble() * settings.maxWork.toNanos()));
            lease.checkValid();
            long act = System.nanoTime();
            if (shared) {
                registers.set(register, value + 1);
            }
            op.actNanos(act).wrote(shared);
        } catch (LockLostException e) {
            op.failure("lost before write: " + e.reason());
        }
        op.deadlineNanos(lease.deadlineNanos()).releaseNanos(System.nanoTime());
        lease.release();
        long lost = lostAt.get();
        if (lost == Op.NONE && lease.lossCause().isPresent()) {
            lost = Math.min(lease.deadlineNanos(), System.nanoTime());
        }
        history.accept(op.lostNanos(lost).build());
        return true;
    }

    /** A think time between attempts: random, up to {@code max}; park may wake early, which only shortens it. */
    private static void park(Random random, Duration max) {
        LockSupport.parkNanos((long) (random.nextDouble() * max.toNanos()));
    }
}
