/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

/** The lock contract for the write lock of a read-write lock. */
class WriteLockContractTest extends LockContractTest {

    @Override
    QuorumPolicy policy() {
        return QuorumPolicy.MAJORITY;
    }

    @Override
    QuorumLock lock(RedlockClient client, String name) {
        return client.readWriteLock(name).writeLock();
    }
}
