package dev.distlock.internal.cdi;

import dev.distlock.LockDefinitionException;
import dev.distlock.internal.core.CombinedCalls;
import dev.distlock.internal.core.LockExecutor;
import dev.distlock.internal.core.LockRequest;
import dev.distlock.internal.core.ReturnKind;
import dev.distlock.LockMode;
import jakarta.interceptor.InvocationContext;

import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;

/**
 * What one interceptor instance needs on every call: the intercepted bean's class, the engine,
 * and the spec of the method it intercepted last. Most beans lock one method, and a proxy hands
 * the interceptor the same {@link Method} object on every call, so finding the spec is one
 * reference comparison; the engine is held directly, not through a client proxy.
 */
final class InterceptedBean {

    private final Class<?> beanClass;
    private final LockSpecs specs;
    private final LockExecutor executor;
    private final BiFunction<Method, CombinedSpec, CombinedCalls.CombinedMethod> combinedMethods;
    private volatile Resolved last;

    private record Resolved(Method method, LockSpec spec) {
    }

    /**
     * @param beanClass       the intercepted bean's class, which may inherit the method
     * @param combinedMethods what serves the batches of a combined method of the bean
     */
    InterceptedBean(Class<?> beanClass, LockSpecs specs, LockExecutor executor,
                    BiFunction<Method, CombinedSpec, CombinedCalls.CombinedMethod> combinedMethods) {
        this.beanClass = beanClass;
        this.specs = specs;
        this.executor = executor;
        this.combinedMethods = combinedMethods;
    }

    /** Runs the invocation under the locks its method's spec names. */
    Object intercept(InvocationContext invocation, LockMode binding) throws Exception {
        LockSpec spec = spec(invocation.getMethod());
        if (spec.mode() != binding) {
            // A class-level annotation of another kind; the method's own annotation governs.
            return invocation.proceed();
        }
        List<String> keys = spec.keys().render(invocation.getParameters());
        if (spec.lazy() != null) {
            // Nothing is locked until something subscribes; each subscription is one locked call.
            Object target = invocation.getTarget();
            Method method = invocation.getMethod();
            return spec.lazy().defer(spec.policy().site(), invocation::proceed, work -> subscribed(spec, keys, work, target, method));
        }
        if (spec.combined() != null) {
            return combined(invocation, spec, keys);
        }
        Object result;
        try {
            result = executor.execute(new LockRequest(spec.policy(), keys, spec.keys().template(), spec.returnKind(),
                    invocation::proceed, invocation.getTarget(), invocation.getMethod()));
        } finally {
            executor.backend().releaseThreadState();
        }
        if (invocation.getMethod().getReturnType() == Object.class) {
            refuseLaterResult(spec, result);
        }
        return result;
    }

    /**
     * A method declared to return {@code Object} handed back work that runs or ends later (a
     * {@code Uni}, a stage), which its lock, released as it returned, did not cover: the caller
     * gets this failure rather than work run unlocked.
     */
    private static void refuseLaterResult(LockSpec spec, Object result) {
        String later = ReturnTypes.resultRefusal(result);
        if (later != null) {
            throw new LockDefinitionException(spec.mode().annotation() + " on " + spec.policy().site() + ": declared to return Object, "
                    + "it returned " + later + ", and its lock was released when it returned; declare the method's return type "
                    + "(Uni or CompletionStage are held until their work ends) so that the lock covers that work");
        }
    }

    /** One subscription of a lazy result: a locked call that ends when the stage its work gives completes. */
    private CompletionStage<?> subscribed(LockSpec spec, List<String> keys, Callable<? extends CompletionStage<?>> work,
                                          Object target, Method method) throws Exception {
        try {
            return (CompletionStage<?>) executor.execute(new LockRequest(spec.policy(), keys, spec.keys().template(),
                    ReturnKind.COMPLETION_STAGE, work, target, method));
        } finally {
            executor.backend().releaseThreadState();
        }
    }

    /** A combined call: served in a batch with the calls waiting for the same keys, or alone inside a transaction or a locked call. */
    private Object combined(InvocationContext invocation, LockSpec spec, List<String> keys) throws Exception {
        CombinedCalls.CombinedMethod method = combinedMethods.apply(invocation.getMethod(), spec.combined());
        Object answer;
        try {
            answer = executor.combined().call(spec.policy(), keys, spec.keys().template(), method, invocation.getParameters(),
                    invocation::proceed);
        } finally {
            executor.backend().releaseThreadState();
        }
        return answer == null && spec.returnKind() == ReturnKind.OPTIONAL ? ReturnKind.OPTIONAL.skipValue() : answer;
    }

    private LockSpec spec(Method method) {
        Resolved cached = last;
        if (cached != null && cached.method == method) {
            return cached.spec;
        }
        LockSpec spec = specs.spec(beanClass, method);
        last = new Resolved(method, spec);
        return spec;
    }
}
