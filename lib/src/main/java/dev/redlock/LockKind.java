/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

/**
 * What kind of lock an acquisition was for, as {@link RedlockListener}s and meters name it.
 */
public enum LockKind {
    /** {@link RedlockClient#redLock(String)}, a semaphore's permit, or {@code withLock}: granted by a majority. */
    REDLOCK,
    /** {@link RedlockClient#multiLock(String)}: granted only by every node. */
    MULTILOCK,
    /** {@link RedlockClient#fairLock(String)}. */
    FAIR,
    /** The read lock of a {@link RedlockClient#readWriteLock(String)}. */
    READ,
    /** The write lock of a {@link RedlockClient#readWriteLock(String)}. */
    WRITE,
    /** {@link RedlockClient#multiResourceLock(java.util.Collection)}. */
    MULTI_RESOURCE
}
