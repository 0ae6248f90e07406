/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.spring.readme;

import dev.redlock.QuorumLock;
import dev.redlock.RedlockClient;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.stereotype.Service;

/**
 * The README's example service: the {@code RedlockClient} bean used directly, and the lock registry.
 */
@Service
public class OrderService {

    private final RedlockClient redlock;
    private final LockRegistry locks;

    /**
     * Creates the service.
     *
     * @param redlock the auto-configured client
     * @param locks the auto-configured lock registry
     */
    public OrderService(RedlockClient redlock, LockRegistry locks) {
        this.redlock = redlock;
        this.locks = locks;
    }

    /**
     * Ships an order under its RedLock.
     *
     * @param orderId the order
     * @return false if another instance holds the order for more than 2 s
     * @throws InterruptedException if interrupted while waiting
     */
    public boolean ship(String orderId) throws InterruptedException {
        QuorumLock lock = redlock.redLock("orders:" + orderId);
        if (!lock.tryLock(2, TimeUnit.SECONDS)) {
            return false;
        }
        try {
            // critical section: kept alive by the client's watchdog until unlock()
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Rebuilds the catalog under the registry's lock.
     *
     * @return what the critical section returned
     * @throws Exception if the lock was not acquired within 5 s ({@code TimeoutException}) or the work failed
     */
    public String rebuildCatalog() throws Exception {
        return locks.executeLocked("catalog", Duration.ofSeconds(5), () -> "rebuilt");
    }
}
