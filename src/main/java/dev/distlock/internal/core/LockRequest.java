package dev.distlock.internal.core;

import dev.distlock.spi.LockPolicy;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;

/**
 * One call that {@link LockExecutor#execute} runs under locks: what it asks for, the work, and,
 * for an intercepted invocation, which one it is.
 *
 * @param policy   how long to wait and hold, and what to do on timeout
 * @param keys     rendered keys, without prefix; taken in sorted order, duplicates once
 * @param template the keys' templates as written, for traces, never a rendered key; {@code null} when unknown
 * @param kind     how the work hands back its result; stages keep the locks until they complete
 * @param work     what runs holding the locks
 * @param target   the intercepted invocation's target, so that the commit guard of its own
 *                 {@code @Transactional} knows it; {@code null} when not intercepted
 * @param method   the intercepted invocation's method; {@code null} when not intercepted
 */
public record LockRequest(LockPolicy policy, List<String> keys, String template, ReturnKind kind, Callable<?> work,
                          Object target, Method method) {

    public LockRequest {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(work, "work");
    }

    /** A call made through the programmatic API: no template, no intercepted invocation. */
    public static LockRequest of(LockPolicy policy, List<String> keys, ReturnKind kind, Callable<?> work) {
        return new LockRequest(policy, keys, null, kind, work, null, null);
    }

    /** A call with its keys' templates, not intercepted: a combined batch's. */
    public static LockRequest of(LockPolicy policy, List<String> keys, String template, ReturnKind kind, Callable<?> work) {
        return new LockRequest(policy, keys, template, kind, work, null, null);
    }
}
