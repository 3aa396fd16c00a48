package dev.distlock.cdi;

import java.lang.reflect.Method;

/**
 * The bean an interceptor instance serves, and the spec of the method it intercepted last: most
 * beans lock one method, and a proxy hands the interceptor the same {@link Method} object on
 * every call, so the per-call lookup is one reference comparison.
 */
final class InterceptedBean {

    private final Class<?> beanClass;
    private volatile Resolved last;

    private record Resolved(Method method, LockSpec spec) {
    }

    InterceptedBean(Class<?> beanClass) {
        this.beanClass = beanClass;
    }

    LockSpec spec(DistlockExtension extension, Method method) {
        Resolved cached = last;
        if (cached != null && cached.method == method) {
            return cached.spec;
        }
        LockSpec spec = extension.spec(beanClass, method);
        last = new Resolved(method, spec);
        return spec;
    }
}
