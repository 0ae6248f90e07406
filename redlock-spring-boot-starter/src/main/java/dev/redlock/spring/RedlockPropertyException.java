/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.spring;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@code redlock.*} setting that cannot work: names the Spring property, says what is wrong with its value, and
 * what to change. Thrown while the application starts (when the properties are bound, or when the client is built
 * from them); the starter's failure analyzer turns it into Spring Boot's "APPLICATION FAILED TO START" report, with
 * the allowed values and where the value came from.
 *
 * <p>The message is {@code "invalid redlock configuration: <property>: <problem>"}. Like the library's own messages,
 * it never shows a node's user or password.
 */
public final class RedlockPropertyException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    /** The Spring property, or null when the setting has none. */
    private final String property;

    /** What is wrong with the value. */
    private final String problem;

    /** What to change. */
    private final String action;

    /**
     * Creates the exception.
     *
     * @param property the Spring property, such as {@code redlock.per-node-timeout} or {@code redlock.nodes[2]}; null
     *     when the setting has no property (it was set by a {@link RedlockConfigCustomizer})
     * @param problem what is wrong, in terms of properties; never a password
     * @param action what to change
     * @param cause the library's exception, or null
     */
    public RedlockPropertyException(String property, String problem, String action, Throwable cause) {
        super(
                "invalid redlock configuration: " + (property == null ? "" : property + ": ")
                        + Objects.requireNonNull(problem, "problem"),
                cause);
        this.property = property;
        this.problem = problem;
        this.action = Objects.requireNonNull(action, "action");
    }

    /**
     * Names the property behind an {@link IllegalArgumentException} of {@link dev.redlock.RedlockConfig.Builder},
     * whose message starts with the library's field ({@code "perNodeTimeout: must be below leaseTime (30 ms), got
     * 50 ms"}): the field becomes its property, and so do the other fields the message names
     * ({@code "must be below redlock.lease-time (30 ms), got 50 ms"}).
     *
     * @param libraryError the builder's exception
     * @return the exception naming the property, with the library's exception as its cause; without a property when
     *     the field has none
     */
    public static RedlockPropertyException of(IllegalArgumentException libraryError) {
        String message = String.valueOf(libraryError.getMessage());
        RedlockPropertyNames.Field field = RedlockPropertyNames.field(message);
        if (field == null) {
            return new RedlockPropertyException(
                    null,
                    message,
                    "This setting has no redlock.* property: correct the RedlockConfigCustomizer bean that sets it.",
                    libraryError);
        }
        String problem = RedlockPropertyNames.translate(message.substring(field.end()), Map.of());
        return new RedlockPropertyException(
                field.property(), problem, RedlockPropertyNames.action(field.property(), problem), libraryError);
    }

    /**
     * Names {@code property} behind an {@link IllegalArgumentException} of a library check run on that property's
     * value: the field that starts the message, and that field wherever the message names it, stand for
     * {@code property}; the other fields become their properties.
     *
     * @param property the Spring property whose value was checked, such as {@code redlock.integration.lease-time}
     * @param libraryError the check's exception
     * @return the exception naming the property, with the library's exception as its cause
     */
    public static RedlockPropertyException of(String property, IllegalArgumentException libraryError) {
        Objects.requireNonNull(property, "property");
        String message = String.valueOf(libraryError.getMessage());
        RedlockPropertyNames.Field field = RedlockPropertyNames.field(message);
        String problem = field == null
                ? message
                : RedlockPropertyNames.translate(message.substring(field.end()), Map.of(field.name(), property));
        return new RedlockPropertyException(
                property, problem, RedlockPropertyNames.action(property, problem), libraryError);
    }

    /** The same failure with {@code more} appended to the action. */
    RedlockPropertyException withMoreAction(String more) {
        RedlockPropertyException e = new RedlockPropertyException(property, problem, action + " " + more, getCause());
        e.setStackTrace(getStackTrace());
        return e;
    }

    /**
     * Returns the Spring property.
     *
     * @return the property, such as {@code redlock.lease-time} or {@code redlock.nodes[1]}; empty when the setting
     *     has none
     */
    public Optional<String> property() {
        return Optional.ofNullable(property);
    }

    /**
     * Returns what is wrong with the value.
     *
     * @return the problem, naming properties rather than the library's fields
     */
    public String problem() {
        return problem;
    }

    /**
     * Returns what to change.
     *
     * @return the action
     */
    public String action() {
        return action;
    }
}
