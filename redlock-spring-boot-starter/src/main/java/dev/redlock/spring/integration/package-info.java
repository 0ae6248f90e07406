/**
 * A Spring Integration {@code LockRegistry} backed by RedLocks, for locks and for leader election with
 * {@code LockRegistryLeaderInitiator}.
 */
package dev.redlock.spring.integration;
