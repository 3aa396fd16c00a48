package dev.distlock.runtimes.shapes;

import dev.distlock.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.Transactional;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Asynchronous {@code @Transactional}: methods that return a stage. Where the runtime's
 * {@code @Transactional} ends the transaction when the stage completes (Narayana's, on WildFly and
 * Quarkus), it suspends the transaction as the method returns; a later caller on the same thread
 * is another caller, and must not enter the lock the call or its transaction still holds.
 */
@ApplicationScoped
public class Later {

    @Inject
    Regions regions;
    @Inject
    Later self;

    /** Locked, in a transaction of its own that ends when {@code done} completes. */
    @Locked("later:{key}")
    @Transactional
    public CompletionStage<String> reserveLater(String key, CompletionStage<String> done) {
        return done;
    }

    /**
     * No lock of its own: a locked callee takes one in the transaction, which keeps it until the
     * transaction has completed; {@code completed} says when that is.
     */
    @Transactional
    public CompletionStage<String> takeThenFinishLater(String key, CompletionStage<String> done, AtomicBoolean completed) {
        regions.registry().registerInterposedSynchronization(new Synchronization() {
            @Override
            public void beforeCompletion() {
            }

            @Override
            public void afterCompletion(int status) {
                completed.set(status == Status.STATUS_COMMITTED || status == Status.STATUS_ROLLEDBACK);
            }
        });
        self.take(key);
        return done;
    }

    @Locked("later:{key}")
    public void take(String key) {
    }

    /** Tries once. */
    @Locked(value = "later:{key}", waitTime = 0)
    public String touch(String key) {
        return "entered";
    }
}
