/**
 * ShedLock integration: {@link dev.redlock.shedlock.RedlockLockProvider}, a ShedLock
 * {@link net.javacrumbs.shedlock.core.ExtensibleLockProvider} whose locks are RedLocks over the Redis masters of a
 * {@link dev.redlock.RedlockClient}.
 */
package dev.redlock.shedlock;
