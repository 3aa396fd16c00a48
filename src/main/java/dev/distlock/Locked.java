package dev.distlock;

import jakarta.enterprise.util.Nonbinding;
import jakarta.interceptor.InterceptorBinding;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the method while holding an exclusive distributed lock: across every JVM that shares the
 * Redis, at most one invocation per key runs at a time.
 *
 * <pre>{@code
 * @Locked("stock:{sku}")
 * @Transactional
 * public Order reserve(String sku, int quantity) { ... }
 * }</pre>
 *
 * <p>On a class, applies to every business method that has no lock annotation of its own.
 * Every member can be overridden in MicroProfile Config as {@code <fqcn>/<method>/Locked/<member>},
 * {@code <fqcn>/Locked/<member>} or {@code Locked/<member>}. Invalid values fail the deployment.
 *
 * <p>{@code @Locked("x")} and {@code @WriteLocked("x")} are different locks; use
 * {@link ReadLocked}/{@link WriteLocked} on every method that shares read-mostly data.
 */
@InterceptorBinding
@Inherited
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface Locked {

    /**
     * Key templates: literal text with placeholders {@code {name}} (needs {@code -parameters}),
     * {@code {0}} (parameter position) and {@code {order.customer.id}} (record components or
     * getters). Parameters annotated {@link LockKey} are appended. Several templates take several
     * locks, in sorted order. Empty: one lock per method, named after class and method.
     * A template that does not match the method's parameters fails the deployment.
     */
    @Nonbinding
    String[] value() default {};

    /**
     * How long to wait for the lock, in milliseconds (default 5 s). {@code 0} tries once, {@code -1} waits
     * forever. Must be {@code >= -1}, otherwise the deployment fails.
     */
    @Nonbinding
    long waitTime() default 5_000;

    /**
     * How long the lock is leased, in milliseconds. {@code -1} (the default) holds it until the
     * method returns, renewed by a watchdog while it runs; a positive value lets the lock expire
     * on its own after that time even if the method still runs. {@code 0} and values below
     * {@code -1} fail the deployment.
     */
    @Nonbinding
    long leaseTime() default -1;

    /** What happens when the lock cannot be had within {@link #waitTime()}. */
    @Nonbinding
    OnTimeout onTimeout() default OnTimeout.FAIL;

    /**
     * Gives each acquisition of the lock in Redis a fencing token, larger than every token handed
     * out before for the key, readable inside the method through {@link LockContext#fencingToken()}.
     * Pass it to the store you write to and let the store refuse writes carrying a smaller token
     * than the last one it accepted (and take an equal one): then even a caller that lost its lock
     * (a long pause, an expired lease) cannot overwrite the work of the caller that took the lock
     * after it. A lock handed on between callers of one JVM keeps its token: the callers of one
     * tenure run one after another, and a later tenure anywhere has a larger token.
     */
    @Nonbinding
    boolean fenced() default false;

    /**
     * The least time, in milliseconds, the lock stays taken after it was acquired, even when the
     * method returns sooner (default {@code 0}: released when the method returns). For work that
     * every server starts on a schedule and that must run once per cluster: with
     * {@code waitTime = 0, onTimeout = SKIP}, the server that takes the lock runs the tick, and a
     * server whose clock is a little behind finds the lock still taken when it fires, and skips.
     * Hold it for less than the schedule's period and more than the clocks' spread. The lock is
     * given back early when distlock stops (the application is undeployed); its lease, renewed
     * meanwhile, must not be shorter ({@link #leaseTime()} {@code -1} or at least this long).
     */
    @Nonbinding
    long holdAtLeast() default 0;
}
