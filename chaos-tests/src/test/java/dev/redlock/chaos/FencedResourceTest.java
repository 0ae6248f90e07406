/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.redlock.Lease;
import dev.redlock.RedlockClient;
import dev.redlock.chaos.cluster.ChaosCluster;
import dev.redlock.chaos.resource.FencedRegister;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A paused holder's late write is rejected by a resource that checks fencing tokens. */
class FencedResourceTest {

    @Test
    void pausedHoldersLateWriteIsRejected() throws Exception {
        FencedRegister register = new FencedRegister();
        try (ChaosCluster cluster = ChaosCluster.start(5, new ChaosCluster.Options());
                RedlockClient a = RedlockClient.create(
                        LockWorkload.baseConfig(cluster.uris()).build());
                RedlockClient b = RedlockClient.create(
                        LockWorkload.baseConfig(cluster.uris()).build())) {
            Lease first = a.redLock("resource")
                    .fenced()
                    .tryAcquire(Duration.ofSeconds(5), Duration.ofMillis(400))
                    .orElseThrow();
            long staleToken = first.fencingToken().orElseThrow();

            // A stops (a long GC pause) past its validity; B takes the lock and writes.
            ChaosTestBase.pause(Duration.ofMillis(700));
            Lease second = b.redLock("resource")
                    .fenced()
                    .tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(5))
                    .orElseThrow();
            long freshToken = second.fencingToken().orElseThrow();
            assertTrue(freshToken > staleToken);
            assertTrue(register.write(freshToken, 2));

            // A wakes up and, not checking its lease, writes anyway: the resource refuses.
            assertFalse(first.isValid());
            assertFalse(register.write(staleToken, 1), "a stale token must be rejected");
            assertEquals(2, register.value());
            assertEquals(2, register.writes().size());
            second.release();
            first.release();
        }
    }
}
