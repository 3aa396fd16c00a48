package dev.distlock.internal.cdi;

import jakarta.enterprise.util.AnnotationLiteral;
import jakarta.interceptor.InterceptorBinding;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Binds the {@link CommitGuard}. Not for applications: distlock's extensions add it to every
 * {@code @Transactional} class and method, so that the guard runs inside each of them.
 */
@InterceptorBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface GuardedCommit {

    /** The annotation as the portable extension adds it. */
    final class Literal extends AnnotationLiteral<GuardedCommit> implements GuardedCommit {
        static final Literal INSTANCE = new Literal();
        private static final long serialVersionUID = 1L;
    }
}
