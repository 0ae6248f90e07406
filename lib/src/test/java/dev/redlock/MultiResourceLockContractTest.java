/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

/** The lock contract for the multi-resource lock (three names per lock). */
class MultiResourceLockContractTest extends LockContractTest {

    @Override
    QuorumPolicy policy() {
        return QuorumPolicy.MAJORITY;
    }

    @Override
    QuorumLock lock(RedlockClient client, String name) {
        return client.multiResourceLock(java.util.List.of(name, name + "/x", name + "/y"));
    }
}
