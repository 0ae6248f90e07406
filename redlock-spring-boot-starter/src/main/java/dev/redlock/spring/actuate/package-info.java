/**
 * The {@code redlock} Actuator health indicator: whether a quorum of the client's nodes answers, per-node status
 * and topology warnings.
 */
package dev.redlock.spring.actuate;
