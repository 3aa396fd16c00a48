package dev.distlock;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Calls of a {@link Locked} (or {@link WriteLocked}) method that wait for the same key in this JVM
 * may be served together: when the lock comes, the bean's batch method runs once for up to
 * {@link #max()} of them ({@link Batch}), in one tenure of the lock — one transaction if it is
 * {@code @Transactional}, one fencing token — and each caller gets its own result or its own
 * exception. A hot key then costs its database round trips once per batch rather than once per
 * call.
 *
 * <pre>{@code
 * @Locked(value = "stock:{sku}", fenced = true)
 * @Combined("placeAll")
 * @Transactional
 * public Order place(String sku, int quantity) { ... }       // alone: a caller in a transaction of its own
 *
 * @Transactional
 * public void placeAll(Batch<Order> batch) { ... }           // read once, answer each call, write once
 * }</pre>
 *
 * <p>A call made inside a transaction, or inside another locked call, is never combined: its work
 * must stay in its transaction and its chain; it runs the method itself, alone, in its turn.
 * Checked at deployment, naming the method: the batch method exists on the bean, takes one
 * {@link Batch} and returns {@code void}, carries no lock annotation; the bean is normal-scoped
 * ({@code @ApplicationScoped}, …); the method returns a plain value; the lock is exclusive or a
 * write lock. Every member can be overridden in MicroProfile Config like {@link Locked}'s:
 * {@code <fqcn>/<method>/Combined/max}, {@code <fqcn>/Combined/max}, {@code Combined/max}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Combined {

    /** The name of the batch method on the same bean: {@code void name(Batch<R>)}, R the method's result. */
    String value();

    /** The most calls one batch serves: 2 to 1,000; otherwise the deployment fails. */
    int max() default 32;
}
