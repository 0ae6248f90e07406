/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.spring.readme;

import org.springframework.context.event.EventListener;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.stereotype.Component;

/**
 * The README's example of following leadership through the initiator's events.
 */
@Component
public class Leadership {

    private volatile boolean leader;

    /**
     * This instance became leader.
     *
     * @param event the grant
     */
    @EventListener
    public void granted(OnGrantedEvent event) {
        leader = true;
    }

    /**
     * This instance is no longer leader.
     *
     * @param event the revocation
     */
    @EventListener
    public void revoked(OnRevokedEvent event) {
        leader = false;
    }

    /**
     * Returns whether this instance is leader now.
     *
     * @return true while leader
     */
    public boolean isLeader() {
        return leader;
    }
}
