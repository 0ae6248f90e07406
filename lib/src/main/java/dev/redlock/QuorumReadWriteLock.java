/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import dev.redlock.internal.engine.QuorumEngine;
import dev.redlock.internal.script.LockRef;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * A read-write lock over the client's independent nodes, granted by a majority: any number of readers, or one writer.
 * Obtained from {@link RedlockClient#readWriteLock(String)}.
 *
 * <p>How: the writer holds the lock's key, as a RedLock does, and each reader holds its own entry in a sorted set
 * beside it, with its own token and expiry. On each node one script decides: a reader is refused while another
 * writer holds the key; a writer is refused while an unexpired reader is in the set, and sets the key otherwise.
 * Any majority that granted a reader and any majority that granted a writer share a node, where the later of the two
 * was refused: so no writer is granted while a reader's lease is valid, and the other way round, under the same fault
 * model as RedLock (TTLs with a drift margin, restart quarantine). A reader that crashes expires alone, when its TTL
 * ends.
 *
 * <p>Both halves are {@link QuorumLock}s, with every face of one (the {@link java.util.concurrent.locks.Lock} face,
 * handles, async, the watchdog, lost-lease signals). Through the {@code Lock} face they are reentrant like
 * {@link java.util.concurrent.locks.ReentrantReadWriteLock}: a thread may take the read lock while it holds the write
 * lock (and keep it after unlocking the write lock: a downgrade), but a thread holding only the read lock that asks
 * for the write lock gets an {@link IllegalStateException} instead of waiting forever for itself. Only the write lock
 * has {@linkplain QuorumLock#fenced() fencing tokens}.
 *
 * <p>Preference: by default a reader is admitted whenever no writer holds the lock, so overlapping readers can keep
 * a writer waiting indefinitely. {@link #preferWriters()} returns the same lock where a waiting writer keeps new
 * readers out (it leaves an entry that lasts {@link RedlockClient#queueWindow()} past each of its attempts, and is
 * removed when it gets the lock and releases, or gives up). Readers already holding it are not interrupted.
 *
 * <p>Thread-safe. Instances are cheap; every instance for one name in one client shares the hold state.
 */
public final class QuorumReadWriteLock implements ReadWriteLock {

    private final RedlockClient client;
    private final QuorumEngine engine;
    private final String name;
    private final String key;
    private final boolean preferWriters;
    private final QuorumLock read;
    private final QuorumLock write;

    QuorumReadWriteLock(RedlockClient client, QuorumEngine engine, String name, String key, boolean preferWriters) {
        this.client = client;
        this.engine = engine;
        this.name = name;
        this.key = key;
        this.preferWriters = preferWriters;
        long window = preferWriters ? client.queueWindow().toMillis() : 0;
        // With notifications, waiting writers stand in a line on the nodes whose head a release names, so that one
        // writer is woken across all clients (see acquire.lua, kind 'w').
        long line = client.writersLineMillis();
        this.read = new QuorumLock(
                client,
                engine,
                LockRef.readWrite(name, key, QuorumPolicy.MAJORITY, false, 0).lined(line));
        this.write = new QuorumLock(
                client,
                engine,
                LockRef.readWrite(name, key, QuorumPolicy.MAJORITY, true, window)
                        .lined(line));
    }

    /**
     * Returns the read lock: shared with other readers, excluded by a writer.
     *
     * @return the read lock; {@link QuorumLock#fenced()} throws {@link UnsupportedOperationException} on it
     */
    @Override
    public QuorumLock readLock() {
        return read;
    }

    /**
     * Returns the write lock: excludes every reader and every other writer.
     *
     * @return the write lock
     */
    @Override
    public QuorumLock writeLock() {
        return write;
    }

    /**
     * Returns this lock where waiting writers keep new readers out, so a stream of readers cannot starve them.
     * Readers and writers of both views exclude each other as before; only whom a node admits first changes.
     *
     * @return the writer-preferring view (this lock if it is one already)
     */
    public QuorumReadWriteLock preferWriters() {
        return preferWriters ? this : new QuorumReadWriteLock(client, engine, name, key, true);
    }

    /**
     * Returns whether waiting writers keep new readers out.
     *
     * @return true for a {@link #preferWriters()} view
     */
    public boolean prefersWriters() {
        return preferWriters;
    }

    /**
     * Returns the lock's name.
     *
     * @return the name given to {@link RedlockClient#readWriteLock(String)}
     */
    public String name() {
        return name;
    }

    @Override
    public String toString() {
        return "QuorumReadWriteLock{" + name + (preferWriters ? ", writers preferred" : "") + ", key=" + key + '}';
    }
}
