/**
 * The implementation behind {@code dev.redlock}; not an API, and free to change in any release. Three layers, each
 * using only the ones below it: {@link dev.redlock.internal.engine} (quorum rounds and leases) over
 * {@link dev.redlock.internal.node} (reaching one node: transports, circuit breakers, restart quarantine) over
 * {@link dev.redlock.internal.script} (what the nodes run). This package holds what they all share.
 */
package dev.redlock.internal;
