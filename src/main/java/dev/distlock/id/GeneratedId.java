package dev.distlock.id;

import jakarta.enterprise.util.Nonbinding;
import jakarta.inject.Qualifier;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Injects a distributed id generator, or a fresh id.
 *
 * <pre>{@code
 * @Inject @GeneratedId("order") IdGenerator orderIds;
 * @Inject @GeneratedId(value = "invoice", strategy = IdStrategy.SEGMENT) IdGenerator invoices;
 * @Inject @GeneratedId("request") long requestId;   // a new id per injection (dependent or request-scoped beans)
 * }</pre>
 *
 * <p>Every injection point with the same name shares one generator. Its settings come from
 * {@code distlock.id.<name>.*} in MicroProfile Config; an invalid setting fails the deployment.
 */
@Qualifier
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.TYPE})
public @interface GeneratedId {

    /**
     * The generator's name: letters, digits, {@code -}, {@code _} and {@code .}, at most 100
     * characters. Names the configuration keys and the stored state (Redis keys, table row).
     */
    @Nonbinding
    String value() default "default";

    /**
     * The strategy; {@code distlock.id.<name>.strategy} overrides it when set. All injection
     * points of one name must agree, otherwise the deployment fails.
     */
    @Nonbinding
    IdStrategy strategy() default IdStrategy.CONFIGURED;
}
