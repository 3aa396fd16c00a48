package dev.distlock.testing;

import dev.distlock.internal.cdi.DistlockExtension;
import org.jboss.weld.junit5.auto.AddBeanClasses;
import org.jboss.weld.junit5.auto.AddExtensions;
import org.jboss.weld.junit5.auto.EnableAutoWeld;
import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A Weld test with distlock and the application's {@link TestRedisClient}, against {@link dev.distlock.testkit.TestRedis}.
 * The test class gets a key prefix of its own ({@link KeyPrefixConfig}); add the beans under
 * test with {@code @AddBeanClasses} and inject them into the test.
 *
 * <p>To boot Weld and Redisson once per class instead of once per test (~0.3 s each), put
 * {@code @TestInstance(PER_CLASS)} on the test class itself: weld-junit reads it from the class
 * only, not through a meta-annotation. The tests of such a class share the container, so each
 * uses lock keys of its own.
 *
 * <p>Tests that need configuration of their own, or expect the deployment to fail, use
 * {@link DistlockWeld#start} instead.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
// Before Weld: the configuration must be registered when the container starts.
@ExtendWith(KeyPrefixConfig.class)
@EnableAutoWeld
@AddExtensions(DistlockExtension.class)
@AddBeanClasses(TestRedisClient.class)
public @interface DistlockWeldTest {
}
