/**
 * The quorum engine: rounds that send one command to every node at once and decide by counting votes
 * ({@link dev.redlock.internal.engine.Round}), one class per kind of round, acquisitions (asynchronous, or joined by a
 * blocking caller), leases and their watchdog. It reaches nodes only through
 * {@link dev.redlock.internal.node.NodeClient}, so its quorum and validity logic runs unchanged over fakes and over the
 * simulation's nodes.
 */
package dev.redlock.internal.engine;
