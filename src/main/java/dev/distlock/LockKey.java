package dev.distlock;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a parameter whose value is appended to the lock key, after the template, separated by
 * {@code :}, in parameter order. {@code @Locked("stock") reserve(@LockKey String sku, int n)}
 * locks {@code stock:<sku>}, the same as {@code @Locked("stock:{sku}")}.
 *
 * <p>The value must not be null or blank; its {@code toString()} is the key part, encoded so that
 * it cannot reach into another key.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
public @interface LockKey {
}
