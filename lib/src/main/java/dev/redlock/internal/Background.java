/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.internal;

import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Work whose result nobody waits for, such as giving back a lease won after its caller gave up: a failure it ends with
 * is logged, never silently lost. (Per-node failures are not exceptions: a release reports them in its result.)
 */
public final class Background {

    private static final Logger LOG = LoggerFactory.getLogger(Background.class);

    private Background() {}

    /**
     * Lets {@code stage} run on, and logs at WARN if it ends with an exception.
     *
     * @param stage the work
     * @param what what it does, for the log
     */
    @SuppressWarnings("FutureReturnValueIgnored") // the point: nothing waits for it
    public static void watch(CompletionStage<?> stage, String what) {
        stage.whenComplete((r, e) -> {
            if (e != null) {
                LOG.warn("{} failed", what, e);
            }
        });
    }
}
