/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.bench;

import dev.redlock.Lease;
import dev.redlock.QuorumLock;
import dev.redlock.RedlockClient;
import dev.redlock.RedlockListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;

/**
 * The lock kinds that {@link Family} compares, as {@link Contender}s: this library's fair lock, read-write lock,
 * semaphore and multi-resource lock over every node, and Redisson's counterparts. Each contender owns its clients.
 */
final class FamilyContenders {

    /** Permits of every semaphore. */
    static final int PERMITS = 4;
    /** Resources of every multi-resource lock. */
    static final int RESOURCES = 3;

    private FamilyContenders() {}

    /** The lock kinds. */
    enum Kind {
        FAIR("fair lock"),
        READ_WRITE("read-write lock"),
        SEMAPHORE("semaphore"),
        MULTI("multi-resource lock");

        final String title;

        Kind(String title) {
            this.title = title;
        }
    }

    /** A contender that also opens the shared side of a lock: the read lock of a read-write lock. */
    interface Shared extends Contender {

        /**
         * Opens a handle on the read lock of {@code lockName}; {@link #open(String)} opens its write lock.
         *
         * @param lockName the read-write lock's name
         * @return a handle for the calling thread
         * @throws Exception whatever the library throws while preparing the lock
         */
        Handle openShared(String lockName) throws Exception;
    }

    /** The names of the resources a multi-resource lock named {@code lockName} holds. */
    static List<String> resources(String lockName) {
        List<String> names = new ArrayList<>(RESOURCES);
        for (int i = 0; i < RESOURCES; i++) {
            names.add(lockName + "/r" + i);
        }
        return names;
    }

    // ------------------------------------------------------------------------------------------------ ours

    /** Acquires one lease of a lock or a semaphore of ours: a {@code tryAcquire(wait, leaseTime)} method. */
    @FunctionalInterface
    private interface LeaseSource {
        Optional<Lease> tryAcquire(Duration wait, Duration leaseTime) throws InterruptedException;
    }

    /** A handle over the handle face of ours: {@code tryAcquire(wait, lease)}, then {@code lease.release()}. */
    private static Contender.Handle leaseHandle(LeaseSource source, Duration lease) {
        return new Contender.Handle() {
            private Lease held;

            @Override
            public boolean acquire(long waitMillis) throws InterruptedException {
                held = source.tryAcquire(Duration.ofMillis(waitMillis), lease).orElse(null);
                return held != null;
            }

            @Override
            public void release() {
                Lease lease = held;
                held = null;
                lease.release();
            }
        };
    }

    /** One kind of this library's lock family over every node, with a client of its own. */
    static final class Ours implements Shared {

        private final Kind kind;
        private final RedlockClient client;
        private final Duration lease;

        /** @param listeners registered with the client, to hear its rounds */
        Ours(Kind kind, List<String> uris, Duration perNodeTimeout, Duration lease, RedlockListener... listeners) {
            this.kind = kind;
            this.lease = lease;
            this.client = OurContender.newClient(uris, perNodeTimeout, true, listeners);
        }

        @Override
        public String id() {
            return switch (kind) {
                case FAIR -> "ours-fair";
                case READ_WRITE -> "ours-rw";
                case SEMAPHORE -> "ours-semaphore";
                case MULTI -> "ours-multi";
            };
        }

        @Override
        public String label() {
            int nodes = client.config().nodeNames().size();
            return switch (kind) {
                case FAIR -> "ours: fairLock (" + nodes + " nodes)";
                case READ_WRITE -> "ours: readWriteLock (" + nodes + " nodes)";
                case SEMAPHORE -> "ours: semaphore, " + PERMITS + " permits (" + nodes + " nodes)";
                case MULTI -> "ours: multiResourceLock, " + RESOURCES + " resources (" + nodes + " nodes)";
            };
        }

        @Override
        public String settings() {
            String call = switch (kind) {
                case FAIR -> "client.fairLock(name)";
                case READ_WRITE ->
                    "client.readWriteLock(name).readLock() / .writeLock() (readers preferred, " + "the default)";
                case SEMAPHORE -> "client.semaphore(name, " + PERMITS + ")";
                case MULTI -> "client.multiResourceLock(" + RESOURCES + " names)";
            };
            return "one RedlockClient over " + client.config().nodeNames().size() + " nodes (majority); " + call
                    + "; tryAcquire(wait, " + lease.toSeconds() + " s) then lease.release(); "
                    + OurContender.clientSettings(client.config());
        }

        @Override
        public Handle open(String lockName) {
            return switch (kind) {
                case FAIR -> leaseHandle(client.fairLock(lockName)::tryAcquire, lease);
                case READ_WRITE -> leaseHandle(client.readWriteLock(lockName).writeLock()::tryAcquire, lease);
                case SEMAPHORE -> leaseHandle(client.semaphore(lockName, PERMITS)::tryAcquire, lease);
                case MULTI -> leaseHandle(client.multiResourceLock(resources(lockName))::tryAcquire, lease);
            };
        }

        @Override
        public Handle openShared(String lockName) {
            if (kind != Kind.READ_WRITE) {
                throw new UnsupportedOperationException(kind.title + " has no shared side");
            }
            QuorumLock read = client.readWriteLock(lockName).readLock();
            return leaseHandle(read::tryAcquire, lease);
        }

        @Override
        public void close() {
            client.close();
        }
    }

    // ------------------------------------------------------------------------------------------------ Redisson

    /** Which Redisson object a {@link Theirs} drives. */
    enum Flavor {
        /** {@code getFairLock}, one node. */
        FAIR_LOCK,
        /** {@code getReadWriteLock}, one node. */
        READ_WRITE_LOCK,
        /** {@code getPermitExpirableSemaphore}: permits with a lease time, like ours; one node. */
        PERMIT_EXPIRABLE_SEMAPHORE,
        /** {@code getSemaphore}: permits without a lease (a crashed holder's permit is never returned); one node. */
        SEMAPHORE,
        /** {@code getMultiLock} over one {@code getLock} per resource, one node. */
        MULTI_LOCK,
        /**
         * One {@code RedissonRedLock} per resource, each over every node, taken one after another in the resources'
         * order and all given back if one cannot be had: a {@code RedissonMultiLock} cannot hold them (it casts its
         * parts to {@code RedissonBaseLock} and fails with a {@link ClassCastException}), so this does what it would.
         */
        RED_LOCKS_IN_ORDER
    }

    /** Redisson's counterpart of one kind, with clients of its own (one per node it uses). */
    static final class Theirs implements Shared {

        private final Flavor flavor;
        private final List<RedissonClient> clients;
        private final int nodes;
        private final long leaseMillis;

        Theirs(Flavor flavor, List<String> uris, Duration lease) {
            this.flavor = flavor;
            this.leaseMillis = lease.toMillis();
            List<String> targets = flavor == Flavor.RED_LOCKS_IN_ORDER ? uris : uris.subList(0, 1);
            this.nodes = targets.size();
            this.clients = RedissonContender.newClients(targets);
        }

        @Override
        public String id() {
            return switch (flavor) {
                case FAIR_LOCK -> "redisson-fair";
                case READ_WRITE_LOCK -> "redisson-rw";
                case PERMIT_EXPIRABLE_SEMAPHORE -> "redisson-permit-semaphore";
                case SEMAPHORE -> "redisson-semaphore";
                case MULTI_LOCK -> "redisson-multi";
                case RED_LOCKS_IN_ORDER -> "redisson-redlocks";
            };
        }

        @Override
        public String label() {
            return switch (flavor) {
                case FAIR_LOCK -> "Redisson RFairLock (1 node)";
                case READ_WRITE_LOCK -> "Redisson RReadWriteLock (1 node)";
                case PERMIT_EXPIRABLE_SEMAPHORE ->
                    "Redisson RPermitExpirableSemaphore, " + PERMITS + " permits (1 node)";
                case SEMAPHORE -> "Redisson RSemaphore, " + PERMITS + " permits (1 node)";
                case MULTI_LOCK -> "Redisson getMultiLock, " + RESOURCES + " RLocks (1 node)";
                case RED_LOCKS_IN_ORDER -> "Redisson " + RESOURCES + " RedissonRedLocks in order (" + nodes + " nodes)";
            };
        }

        @Override
        public String settings() {
            String shape = switch (flavor) {
                case FAIR_LOCK ->
                    "client.getFairLock(name); tryLock(wait, " + leaseMillis + ", MILLISECONDS) then " + "unlock()";
                case READ_WRITE_LOCK ->
                    "client.getReadWriteLock(name).readLock() / .writeLock(); tryLock(wait, " + leaseMillis
                            + ", MILLISECONDS) then unlock()";
                case PERMIT_EXPIRABLE_SEMAPHORE ->
                    "client.getPermitExpirableSemaphore(name), trySetPermits(" + PERMITS + "); id = tryAcquire(wait, "
                            + leaseMillis + ", MILLISECONDS) then release(id)";
                case SEMAPHORE ->
                    "client.getSemaphore(name), trySetPermits(" + PERMITS + "); tryAcquire(Duration wait)"
                            + " then release() (no lease time: a permit is held until released)";
                case MULTI_LOCK ->
                    "client.getMultiLock(" + RESOURCES + " x client.getLock(resource)); tryLock(wait, " + leaseMillis
                            + ", MILLISECONDS) then unlock()";
                case RED_LOCKS_IN_ORDER ->
                    RESOURCES + " x new RedissonRedLock(one getLock(resource) per client, "
                            + "one client per node), in the resources' order: each tryLock(wait left, " + leaseMillis
                            + ", MILLISECONDS), and on a refusal unlock() of those taken; then unlock() of each "
                            + "(new RedissonMultiLock(those RedissonRedLocks) throws ClassCastException)";
            };
            return shape + "; " + RedissonContender.CLIENT_SETTINGS;
        }

        // RedissonRedLock is deprecated, but it is still the Redlock that Redisson ships and documents.
        @Override
        @SuppressWarnings("deprecation")
        public Handle open(String lockName) {
            String key = "redisson:" + lockName;
            RedissonClient client = clients.get(0);
            return switch (flavor) {
                case FAIR_LOCK -> lockHandle(client.getFairLock(key));
                case READ_WRITE_LOCK -> lockHandle(client.getReadWriteLock(key).writeLock());
                case PERMIT_EXPIRABLE_SEMAPHORE -> permitHandle(client.getPermitExpirableSemaphore(key));
                case SEMAPHORE -> semaphoreHandle(client.getSemaphore(key));
                case MULTI_LOCK ->
                    lockHandle(client.getMultiLock(
                            resources(key).stream().map(client::getLock).toArray(RLock[]::new)));
                case RED_LOCKS_IN_ORDER ->
                    inOrderHandle(resources(key).stream()
                            .map(resource -> (RLock) new RedissonRedLock(clients.stream()
                                    .map(c -> c.getLock(resource))
                                    .toArray(RLock[]::new)))
                            .toList());
            };
        }

        @Override
        public Handle openShared(String lockName) {
            if (flavor != Flavor.READ_WRITE_LOCK) {
                throw new UnsupportedOperationException(flavor + " has no shared side");
            }
            return lockHandle(
                    clients.get(0).getReadWriteLock("redisson:" + lockName).readLock());
        }

        private Handle lockHandle(RLock lock) {
            return RedissonContender.handle(lock, leaseMillis);
        }

        /** Takes the locks one after another within one wait budget; gives back those taken if one is refused. */
        private Handle inOrderHandle(List<RLock> locks) {
            return new Handle() {
                @Override
                public boolean acquire(long waitMillis) throws InterruptedException {
                    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
                    for (int i = 0; i < locks.size(); i++) {
                        long left = Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
                        boolean taken = false;
                        try {
                            taken = locks.get(i).tryLock(left, leaseMillis, TimeUnit.MILLISECONDS);
                        } finally {
                            if (!taken) {
                                unlock(i);
                            }
                        }
                        if (!taken) {
                            return false;
                        }
                    }
                    return true;
                }

                @Override
                public void release() {
                    unlock(locks.size());
                }

                /** Unlocks the first {@code count} locks, last first; throws the first failure after trying all. */
                private void unlock(int count) {
                    Cleanup.eachInReverse(locks.subList(0, count), RLock::unlock);
                }
            };
        }

        private Handle permitHandle(RPermitExpirableSemaphore semaphore) {
            semaphore.trySetPermits(PERMITS); // the first handle sets them; the others find them set
            return new Handle() {
                private String permit;

                @Override
                public boolean acquire(long waitMillis) throws InterruptedException {
                    permit = semaphore.tryAcquire(waitMillis, leaseMillis, TimeUnit.MILLISECONDS);
                    return permit != null;
                }

                @Override
                public void release() {
                    String id = permit;
                    permit = null;
                    semaphore.release(id);
                }
            };
        }

        private static Handle semaphoreHandle(RSemaphore semaphore) {
            semaphore.trySetPermits(PERMITS); // the first handle sets them; the others find them set
            return new Handle() {
                @Override
                public boolean acquire(long waitMillis) throws InterruptedException {
                    return semaphore.tryAcquire(Duration.ofMillis(waitMillis));
                }

                @Override
                public void release() {
                    semaphore.release();
                }
            };
        }

        @Override
        public void close() {
            RedissonContender.shutdownAll(clients);
        }
    }
}
