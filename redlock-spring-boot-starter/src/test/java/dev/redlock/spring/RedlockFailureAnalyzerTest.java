/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.redlock.RedlockClient;
import dev.redlock.testkit.RedisNodesExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A bad {@code redlock.*} setting in a whole Spring Boot application (every auto-configuration on the class path, the
 * analyzer found through {@code spring.factories}) over five real Redis masters: startup fails with Spring Boot's
 * "APPLICATION FAILED TO START" report, read here from the console as a user sees it, naming the property, the
 * allowed values, the value given and where, and what to change; never a stack trace, never a password.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedlockFailureAnalyzerTest {

    @RegisterExtension
    static final RedisNodesExtension REDIS = new RedisNodesExtension(5);

    /** An application with nothing of its own. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {}

    private static SpringApplicationBuilder app() {
        return new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .properties("spring.main.register-shutdown-hook=false");
    }

    /** The test nodes' settings as command-line arguments, without those in {@code except}. */
    private static List<String> nodeArgs(String... except) {
        List<String> args = new ArrayList<>();
        for (String p : TestNodes.properties(REDIS.uris())) {
            if (Arrays.stream(except).noneMatch(e -> p.startsWith(e + "="))) {
                args.add("--" + p);
            }
        }
        return args;
    }

    private static List<String> with(List<String> args, String... more) {
        List<String> all = new ArrayList<>(args);
        for (String m : more) {
            all.add("--" + m);
        }
        return all;
    }

    /** Starts the application, which must fail; returns what it printed meanwhile, and the failure. */
    private static Report startupFails(CapturedOutput output, List<String> args) {
        int before = output.getAll().length();
        Throwable failure =
                catchThrowable(() -> app().run(args.toArray(new String[0])).close());
        assertThat(failure).as("startup failure").isNotNull();
        String printed = output.getAll().substring(before);
        assertThat(printed)
                .contains("APPLICATION FAILED TO START", "Description:", "Action:")
                .doesNotContain("Application run failed", "\tat org.springframework", "Caused by:")
                .doesNotContain("Failed to bind properties under");
        return new Report(printed, failure);
    }

    private record Report(String printed, Throwable failure) {

        /** The text between "Description:" and "Action:". */
        String description() {
            return printed.substring(printed.indexOf("Description:"), printed.indexOf("Action:"));
        }

        /** The text after "Action:". */
        String action() {
            return printed.substring(printed.indexOf("Action:"));
        }
    }

    @Test
    void aSettingTheLibraryRefusesNamesBothPropertiesTheirValuesAndTheFix(CapturedOutput output) {
        Report r = startupFails(
                output,
                with(
                        nodeArgs("redlock.per-node-timeout", "redlock.lease-time"),
                        "redlock.per-node-timeout=20s",
                        "redlock.lease-time=10s"));
        assertThat(r.description())
                .contains(
                        "Invalid Redlock configuration: redlock.per-node-timeout: must be below redlock.lease-time"
                                + " (10000 ms), got 20000 ms",
                        "Property: redlock.per-node-timeout",
                        "Allowed:  a duration with a unit",
                        "from 1ms to 1m, below redlock.lease-time; default 50ms",
                        "redlock.per-node-timeout=20s",
                        "redlock.lease-time=10s",
                        "commandLineArgs")
                .doesNotContain("perNodeTimeout", "leaseTime");
        assertThat(r.action()).contains("Make redlock.per-node-timeout (default 50ms) smaller than redlock.lease-time");
        assertThat(r.failure())
                .hasCauseInstanceOf(Exception.class)
                .rootCause()
                .isInstanceOf(IllegalArgumentException.class);
        RedlockPropertyException e = findCause(r.failure(), RedlockPropertyException.class);
        assertThat(e.property()).hasValue("redlock.per-node-timeout");
    }

    @Test
    void noNodesSaysHowToGiveThem(CapturedOutput output) {
        Report r = startupFails(output, with(nodeArgs("redlock.nodes")));
        assertThat(r.description())
                .contains(
                        "redlock.nodes: at least 1 node is required",
                        "Allowed:  node URIs, redis://[user:password@]host[:port][/db]",
                        "redlock.nodes is not set");
        assertThat(r.action()).contains("Set redlock.nodes to the URIs of your Redis masters");
    }

    @Test
    void aMalformedNodeUriIsNamedByPositionWithoutItsPassword(CapturedOutput output) {
        String secret = "s3cret-in-uri";
        Report r = startupFails(
                output,
                with(
                        nodeArgs("redlock.nodes"),
                        "redlock.nodes=" + REDIS.uris().get(0) + ",redis://app:" + secret + "@127.0.0.1:port"));
        assertThat(r.description())
                .contains(
                        "Invalid Redlock configuration: redlock.nodes[1]: ",
                        "Property: redlock.nodes[1]",
                        "the value is not shown, it may carry a password");
        assertThat(r.action()).contains("Correct redlock.nodes[1]: the form is redis://[user:password@]host");
        assertThat(output.getAll()).doesNotContain(secret);
        assertThat(r.failure()).hasStackTraceContaining("redlock.nodes[1]");
    }

    @Test
    void aValueThatCannotBeReadNamesThePropertyAndTheAllowedValues(CapturedOutput output) {
        Report duration = startupFails(output, with(nodeArgs("redlock.lease-time"), "redlock.lease-time=soon"));
        assertThat(duration.description())
                .contains(
                        "Invalid Redlock configuration: redlock.lease-time: cannot be read as a duration",
                        "Given:    redlock.lease-time=soon",
                        "Allowed:  a duration with a unit (ns, us, ms, s, m, h, d), such as 500ms, 30s or 5m",
                        "from 1ms to 7d");
        assertThat(duration.action()).contains("Change redlock.lease-time (", "commandLineArgs", "to a duration");

        Report flag = startupFails(
                output, with(nodeArgs("redlock.restart-quarantine"), "redlock.restart-quarantine=perhaps"));
        assertThat(flag.description())
                .contains(
                        "redlock.restart-quarantine: cannot be read as true or false",
                        "Given:    redlock.restart-quarantine=perhaps",
                        "Allowed:  true or false");

        Report size = startupFails(output, with(nodeArgs(), "redlock.max-reply-bytes=lots"));
        assertThat(size.description())
                .contains("redlock.max-reply-bytes: cannot be read as a size", "from 16KB to 16MB; default 64KB");
    }

    @Test
    void aDurationWithoutAUnitFailsNamingThePropertyAndTheFix(CapturedOutput output) {
        // lease-time: 30 in YAML is the number 30, which Spring would read as 30 ms.
        Report yaml = startupFails(
                output,
                with(nodeArgs("redlock.lease-time"), "spring.config.location=classpath:bare-duration/application.yml"));
        assertThat(yaml.description())
                .contains(
                        "Invalid Redlock configuration: redlock.lease-time: 30 has no unit, and a bare number would"
                                + " be read as milliseconds (30ms)",
                        "redlock.lease-time=30 (class path resource [bare-duration/application.yml]");
        assertThat(yaml.action())
                .contains("Give redlock.lease-time a unit: 30s for seconds, or 30ms if milliseconds were meant");

        Report nested = startupFails(output, with(nodeArgs(), "redlock.integration.lease-time=10"));
        assertThat(nested.description()).contains("redlock.integration.lease-time: 10 has no unit");
        assertThat(nested.action()).contains("Give redlock.integration.lease-time a unit: 10s");
    }

    @Test
    void aDurationWithAUnitStartsAndABareZeroIsAccepted() {
        try (ConfigurableApplicationContext context = app().run(with(
                        nodeArgs("redlock.lease-time"),
                        "redlock.lease-time=30s",
                        "redlock.max-hold-time=0",
                        "redlock.health.topology-check-interval=0")
                .toArray(new String[0]))) {
            RedlockClient client = context.getBean(RedlockClient.class);
            assertThat(client.config().leaseTime()).isEqualTo(Duration.ofSeconds(30));
            assertThat(client.config().maxHoldTime()).isEqualTo(Duration.ZERO);
        }
    }

    @Test
    void theRegistryLeaseTimeIsNamedInItsOwnTerms(CapturedOutput output) {
        Report r = startupFails(output, with(nodeArgs(), "redlock.integration.lease-time=100ms"));
        assertThat(r.description())
                .contains(
                        "redlock.integration.lease-time: 100 ms can never yield a lease: redlock.integration.lease-time"
                                + " - drift (3 ms) - redlock.per-node-timeout (200 ms) must exceed redlock.min-validity",
                        "redlock.integration.lease-time=100ms",
                        "redlock.per-node-timeout=200ms",
                        "redlock.min-validity is not set");
        assertThat(r.action()).contains("Raise redlock.integration.lease-time, or remove it");
    }

    @Test
    void aStrictTopologyFailureSaysWhatWasFoundAndHowToStartAnyway(CapturedOutput output) {
        Report r = startupFails(
                output,
                with(
                        nodeArgs("redlock.nodes"),
                        "redlock.nodes=" + String.join(",", REDIS.uris().subList(0, 4)),
                        "redlock.strict-topology=true"));
        assertThat(r.description())
                .contains("redlock.strict-topology=true makes them fail startup", "4 nodes configured: an even N")
                .doesNotContain("problem(s)");
        assertThat(r.action()).contains("set redlock.strict-topology=false to start anyway");
    }

    private static <T extends Throwable> T findCause(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in " + failure);
    }
}
