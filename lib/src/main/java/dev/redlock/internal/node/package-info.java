/**
 * Reaching one node: the {@link dev.redlock.internal.node.NodeClient} interface the engine submits
 * {@link dev.redlock.internal.node.NodeOp}s to, its two transports (a small NIO RESP client, plain or TLS, and the user's own {@link dev.redlock.NodeTransport}), the circuit
 * breaker each sits behind, restart quarantine, release notifications, the fencing counter repair and the topology
 * check. One node's failure stays here: it becomes that node's outcome, never the client's.
 */
package dev.redlock.internal.node;
