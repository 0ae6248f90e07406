/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.spring;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.validation.BindValidationException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.origin.Origin;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;

/**
 * Turns a bad {@code redlock.*} setting into Spring Boot's "APPLICATION FAILED TO START" report instead of nested
 * stack traces: the property, what is wrong, the allowed values, the values given and where they come from, and what
 * to change. Covers
 * <ul>
 *   <li>a {@link RedlockPropertyException} (a value the library refuses, or a duration without a unit);</li>
 *   <li>a value of a {@code redlock.*} property that cannot be read as its type (a {@link BindException});</li>
 *   <li>a topology check that failed startup under {@code redlock.strict-topology=true}.</li>
 * </ul>
 *
 * <p>Never shows a value that may carry a secret: node URIs and passwords are named by their origin only. Ordered
 * before Spring Boot's own analyzers, which would report a {@code redlock.*} binding failure without the allowed
 * values. Registered in {@code META-INF/spring.factories}.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
final class RedlockFailureAnalyzer implements FailureAnalyzer {

    private static final ConfigurationPropertyName REDLOCK = ConfigurationPropertyName.of("redlock");

    /** A property named in a problem's text. */
    private static final Pattern PROPERTY = Pattern.compile("\\bredlock(?:\\.[a-z][a-z0-9-]*)+(?:\\[\\d+])?");

    private static final String STRICT = "strictTopology: ";

    /** How the strict topology failure introduces its problems. */
    private static final Pattern FOUND = Pattern.compile("^the topology check found \\d+ problem\\(s\\): ");

    private final Environment environment;

    /**
     * Creates the analyzer; Spring Boot passes the application's environment.
     *
     * @param environment where the values and their origins are looked up; null when there is no context yet
     */
    RedlockFailureAnalyzer(Environment environment) {
        this.environment = environment;
    }

    @Override
    public FailureAnalysis analyze(Throwable failure) {
        RedlockPropertyException property = cause(failure, RedlockPropertyException.class);
        if (property != null) {
            return analyze(failure, property);
        }
        BindException bind = bindFailure(failure);
        if (bind != null) {
            return analyze(failure, bind);
        }
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof IllegalStateException
                    && t.getMessage() != null
                    && t.getMessage().startsWith(STRICT)) {
                return strictTopology(failure, t.getMessage().substring(STRICT.length()));
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return null;
    }

    private FailureAnalysis analyze(Throwable failure, RedlockPropertyException e) {
        StringBuilder d = new StringBuilder("Invalid Redlock configuration: ");
        if (e.property().isEmpty()) {
            d.append(e.problem()).append('\n');
            return new FailureAnalysis(d.toString(), e.action(), failure);
        }
        String property = e.property().get();
        d.append(property).append(": ").append(e.problem()).append("\n\n");
        line(d, "Property", property);
        String allowed = RedlockPropertyNames.allowed(property);
        if (allowed != null) {
            line(d, "Allowed", allowed);
        }
        Set<String> named = new LinkedHashSet<>();
        named.add(property);
        Matcher m = PROPERTY.matcher(e.problem());
        while (m.find()) {
            named.add(m.group());
        }
        List<String> values = new ArrayList<>();
        for (String name : named) {
            String value = value(name);
            if (value != null) {
                values.add(value);
            }
        }
        for (int i = 0; i < values.size(); i++) {
            line(d, i == 0 ? "Given" : "", values.get(i));
        }
        return new FailureAnalysis(d.toString(), e.action(), failure);
    }

    private FailureAnalysis analyze(Throwable failure, BindException e) {
        String property = e.getName().toString();
        ConfigurationProperty given = e.getProperty();
        Class<?> type = e.getTarget().getType().resolve(Object.class);
        String allowed = RedlockPropertyNames.allowed(property);
        if (allowed == null) {
            allowed = allowed(type);
        }
        boolean secret = RedlockPropertyNames.secret(property);
        StringBuilder d = new StringBuilder("Invalid Redlock configuration: ")
                .append(property)
                .append(": cannot be read as ")
                .append(article(type))
                .append("\n\n");
        line(d, "Property", property);
        if (given != null) {
            line(d, "Given", describe(given.getName().toString(), given.getValue(), given.getOrigin()));
        }
        if (!secret) {
            line(d, "Problem", rootMessage(e));
        }
        if (allowed != null) {
            line(d, "Allowed", allowed);
        }
        Origin origin = given == null ? null : given.getOrigin();
        RedlockPropertyNames.Form form = RedlockPropertyNames.form(property);
        String to = form != null ? form.text : allowed(type);
        String action = "Change " + property
                + (origin == null ? " in the application's configuration" : " (" + origin + ")")
                + (to == null ? "." : " to " + to + ".");
        return new FailureAnalysis(d.toString(), action, failure);
    }

    private FailureAnalysis strictTopology(Throwable failure, String message) {
        String problems = FOUND.matcher(message).replaceFirst("");
        String d = "The Redlock topology check found problems, and redlock.strict-topology=true makes them fail"
                + " startup:\n\n    " + problems + "\n";
        return new FailureAnalysis(
                d,
                "Fix what the check found on the nodes (each problem names its node), or set"
                        + " redlock.strict-topology=false to start anyway with these logged as warnings.",
                failure);
    }

    /** The first {@link BindException} in the chain about a {@code redlock.*} property that Boot does not own. */
    private static BindException bindFailure(Throwable failure) {
        BindException bind = cause(failure, BindException.class);
        if (bind == null || !(REDLOCK.equals(bind.getName()) || REDLOCK.isAncestorOf(bind.getName()))) {
            return null;
        }
        if (bind.getCause() instanceof BindValidationException
                || bind.getCause() instanceof UnboundConfigurationPropertiesException) {
            return null;
        }
        return bind;
    }

    /**
     * {@code name}'s value and origin as the environment has it, the default when it is not set, or null without an
     * environment.
     */
    private String value(String name) {
        if (environment == null || !ConfigurationPropertyName.isValid(name)) {
            return null;
        }
        ConfigurationPropertyName key = ConfigurationPropertyName.of(name);
        ConfigurationPropertyName base = ConfigurationPropertyName.of(RedlockPropertyNames.withoutIndex(name));
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            ConfigurationProperty p = source.getConfigurationProperty(key);
            if (p == null && !base.equals(key)) {
                p = source.getConfigurationProperty(base);
            }
            if (p != null) {
                return describe(p.getName().toString(), p.getValue(), p.getOrigin());
            }
        }
        return name + " is not set (its default applies)";
    }

    /** {@code name=value (origin)}, with the value left out when it may carry a secret. */
    private static String describe(String name, Object value, Origin origin) {
        String where = origin == null ? "" : " (" + origin + ")";
        if (RedlockPropertyNames.secret(name)) {
            return name + where + "; the value is not shown, it may carry a password";
        }
        return name + "=" + value + where;
    }

    /** The form of values of {@code type}, for a property the table does not know. */
    private static String allowed(Class<?> type) {
        if (type.isEnum()) {
            return "one of "
                    + Arrays.stream(type.getEnumConstants())
                            .map(c -> ((Enum<?>) c)
                                    .name()
                                    .toLowerCase(Locale.ROOT)
                                    .replace('_', '-'))
                            .collect(Collectors.joining(", "));
        }
        RedlockPropertyNames.Form form = null;
        if (type == java.time.Duration.class) {
            form = RedlockPropertyNames.Form.DURATION;
        } else if (type == org.springframework.util.unit.DataSize.class) {
            form = RedlockPropertyNames.Form.SIZE;
        } else if (type == boolean.class || type == Boolean.class) {
            form = RedlockPropertyNames.Form.BOOLEAN;
        } else if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
            form = RedlockPropertyNames.Form.WHOLE_NUMBER;
        } else if (type == double.class || type == Double.class) {
            form = RedlockPropertyNames.Form.NUMBER;
        }
        return form == null ? null : form.text;
    }

    private static String article(Class<?> type) {
        if (type == java.time.Duration.class) {
            return "a duration";
        }
        if (type == org.springframework.util.unit.DataSize.class) {
            return "a size";
        }
        if (type == boolean.class || type == Boolean.class) {
            return "true or false";
        }
        if (type.isEnum()) {
            return "one of its values";
        }
        if (type.isPrimitive() || Number.class.isAssignableFrom(type)) {
            return "a number";
        }
        return type.getSimpleName();
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
    }

    private static void line(StringBuilder d, String label, String text) {
        d.append("    ")
                .append(label.isEmpty() ? "" : label + ":")
                .append(" ".repeat(10 - (label.isEmpty() ? 0 : label.length() + 1)))
                .append(text)
                .append('\n');
    }

    private static <T extends Throwable> T cause(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return null;
    }
}
