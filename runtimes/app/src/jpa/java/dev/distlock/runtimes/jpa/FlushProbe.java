package dev.distlock.runtimes.jpa;

import jakarta.persistence.PreUpdate;

/**
 * Runs what the current thread asked for while the persistence provider flushes an update: JPA
 * calls {@code @PreUpdate} just before it sends the UPDATE, which Hibernate and EclipseLink do in
 * the transaction's {@code beforeCompletion}, when it is about to commit.
 */
public class FlushProbe {

    static final ThreadLocal<Runnable> DURING_FLUSH = new ThreadLocal<>();

    @PreUpdate
    void flushing(Object entity) {
        Runnable action = DURING_FLUSH.get();
        if (action != null) {
            DURING_FLUSH.remove();
            action.run();
        }
    }
}
