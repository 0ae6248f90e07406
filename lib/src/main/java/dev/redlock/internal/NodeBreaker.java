package dev.redlock.internal;

import dev.redlock.NodeStatus;
import dev.redlock.RedlockConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import java.util.concurrent.TimeUnit;

/** The per-node circuit breaker both node clients use, and how an op's outcome is recorded in it. */
final class NodeBreaker {

    private NodeBreaker() {
    }

    static CircuitBreaker create(String name, RedlockConfig config) {
        return CircuitBreaker.of(name, CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(10)
                .minimumNumberOfCalls(5)
                .failureRateThreshold(50)
                .waitDurationInOpenState(config.circuitOpenDuration())
                .permittedNumberOfCallsInHalfOpenState(2)
                // Automatic transition would start a timer thread per breaker; the next call probes instead.
                .automaticTransitionFromOpenToHalfOpenEnabled(false)
                .writableStackTraceEnabled(false)
                .build());
    }

    /** Takes a permission for an acquire or extension; releases need none (an earlier acquire may have landed). */
    static boolean permit(CircuitBreaker breaker, NodeOp op) {
        if (op.kind == NodeOp.Kind.RELEASE) {
            return true;
        }
        if (!breaker.tryAcquirePermission()) {
            return false;
        }
        op.permitted = true;
        return true;
    }

    /** Records an op's outcome exactly once; an op that never reached the node says nothing about its health. */
    static void record(CircuitBreaker breaker, NodeOp op, NodeStatus status, Throwable error, long nowNanos) {
        if (!op.permitted) {
            return;
        }
        op.permitted = false;
        long took = op.sentAtNanos == 0 ? 0 : nowNanos - op.sentAtNanos;
        if (error instanceof QuietException.NotSent) {
            breaker.releasePermission();
        } else if (status == NodeStatus.ERROR || status == NodeStatus.TIMEOUT) {
            breaker.onError(took, TimeUnit.NANOSECONDS, error);
        } else {
            breaker.onSuccess(took, TimeUnit.NANOSECONDS);
        }
    }
}
