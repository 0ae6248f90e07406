/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.spring;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.regex.Pattern;
import org.springframework.boot.context.properties.ConfigurationPropertiesBindHandlerAdvisor;
import org.springframework.boot.context.properties.bind.AbstractBindHandler;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.core.env.Environment;

/**
 * Refuses a duration without a unit in the {@code redlock.*} properties. Spring reads {@code lease-time: 30} as 30
 * milliseconds; for a lock lease, a per-node timeout or a wait budget that is almost never what was meant, and a
 * lease of 30 ms is dangerous (it expires before the work is done). Only {@code 0}, the same in every unit, may be given
 * without one. Other properties of the application are left alone.
 */
final class RedlockDurationUnits implements ConfigurationPropertiesBindHandlerAdvisor {

    private static final ConfigurationPropertyName REDLOCK = ConfigurationPropertyName.of("redlock");

    /** What Spring would read as milliseconds: a whole number without a unit. */
    private static final Pattern BARE = Pattern.compile("[+-]?\\d+");

    private final Environment environment;

    /**
     * Creates the advisor.
     *
     * @param environment resolves placeholders in raw values; may be null
     */
    RedlockDurationUnits(Environment environment) {
        this.environment = environment;
    }

    @Override
    public BindHandler apply(BindHandler bindHandler) {
        return new AbstractBindHandler(bindHandler) {
            @Override
            public Object onSuccess(
                    ConfigurationPropertyName name, Bindable<?> target, BindContext context, Object result) {
                if (REDLOCK.isAncestorOf(name)
                        && Duration.class.equals(target.getType().resolve())) {
                    check(name, context);
                }
                return super.onSuccess(name, target, context, result);
            }
        };
    }

    private void check(ConfigurationPropertyName name, BindContext context) {
        for (ConfigurationPropertySource source : context.getSources()) {
            ConfigurationProperty property = source.getConfigurationProperty(name);
            if (property != null) {
                String bare = bareNumber(property.getValue());
                if (bare != null) {
                    throw new RedlockPropertyException(
                            name.toString(),
                            bare + " has no unit, and a bare number would be read as milliseconds (" + bare + "ms)",
                            "Give " + name + " a unit: " + bare + "s for seconds, or " + bare
                                    + "ms if milliseconds were meant (units: ns, us, ms, s, m, h, d; or ISO-8601 such"
                                    + " as PT" + bare + "S). Only 0 may be given without a unit.",
                            null);
                }
                return;
            }
        }
    }

    /** The value as written when it is a number other than zero without a unit, else null. */
    private String bareNumber(Object value) {
        String text;
        if (value instanceof Number) {
            text = value.toString();
        } else if (value instanceof CharSequence) {
            text = value.toString();
            if (environment != null) {
                text = environment.resolvePlaceholders(text);
            }
            text = text.trim();
            if (!BARE.matcher(text).matches()) {
                return null;
            }
        } else {
            return null;
        }
        try {
            return new BigDecimal(text).signum() == 0 ? null : text;
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
