/**
 * The soak: independent clients locking for a long time under periodic kills, pauses and restarts, while the JVM's
 * and the nodes' resources are sampled every minute and judged for growth at the end ({@link
 * dev.redlock.chaos.soak.SoakChecker}).
 */
package dev.redlock.chaos.soak;
