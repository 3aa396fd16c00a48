package dev.distlock;

import java.util.OptionalLong;

/**
 * What the running locked call holds. Inject it ({@code @Inject LockContext lock}) into the bean
 * whose method is {@code @Locked(fenced = true)}, or get it from {@link DistributedLocks#context()}.
 *
 * <pre>{@code
 * @Locked(value = "stock:{sku}", fenced = true)
 * @Transactional
 * public void reserve(String sku, int quantity) {
 *     long token = lock.fencingToken().orElseThrow();
 *     // UPDATE product SET stock = ?, fence = :token WHERE sku = ? AND fence <= :token
 * }
 * }</pre>
 *
 * <p>Answers for the current thread's locked call (and, for a {@code CompletionStage} method, only
 * while its body runs on the calling thread).
 */
public interface LockContext {

    /**
     * The fencing token of the fenced lock the current call took last, empty outside a fenced
     * lock: the token Redis gave when it granted the lock, larger than every token of an earlier
     * grant for the same key, and shared by the callers the lock is handed to inside this JVM.
     */
    OptionalLong fencingToken();

    /**
     * The fencing token of the fenced lock on {@code key} (rendered, without the prefix, e.g.
     * {@code stock:A-1}), if the current call holds one.
     */
    OptionalLong fencingToken(String key);
}
