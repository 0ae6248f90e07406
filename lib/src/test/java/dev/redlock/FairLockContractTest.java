/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

/** The lock contract for the fair lock. */
class FairLockContractTest extends LockContractTest {

    @Override
    QuorumPolicy policy() {
        return QuorumPolicy.MAJORITY;
    }

    @Override
    QuorumLock lock(RedlockClient client, String name) {
        return client.fairLock(name);
    }
}
