package dev.distlock.runtimes.quarkus;

import dev.distlock.Locked;
import dev.distlock.runtimes.shapes.Regions;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

import java.time.Duration;

/**
 * Locked methods returning Mutiny's {@code Uni} (Quarkus only: the other runtimes have no Mutiny).
 * Each counts itself into its key's region in Redis when its {@code Uni}'s work begins and out a
 * moment later, on other threads, without blocking the thread it runs on ({@link Regions}); a
 * second caller inside is an overlap. Each answers where the method itself ran.
 */
@ApplicationScoped
public class UniWork {

    /** The work outlives the method by this much, on a timer's thread. */
    private static final Duration THINK = Duration.ofMillis(1);

    @Inject
    Regions regions;

    @Locked(value = "uni:{shape}:{key}", waitTime = 60_000)
    public Uni<String> locked(String shape, String key) {
        return region(shape, key);
    }

    /** The twin: the same work, no lock. */
    public Uni<String> unlocked(String shape, String key) {
        return region(shape, key);
    }

    /**
     * With {@code @Transactional}, which on Quarkus commits when the {@code Uni} ends: the region
     * is entered in the method, inside the transaction, and left just before it commits. The lock
     * must be held until after that commit.
     */
    @Locked(value = "uni:{shape}:{key}", waitTime = 60_000)
    @Transactional
    public Uni<String> lockedInTransaction(String shape, String key) {
        return regionUntilCommit(shape, key);
    }

    /** The twin of {@link #lockedInTransaction}, without the lock. */
    @Transactional
    public Uni<String> inTransactionUnlocked(String shape, String key) {
        return regionUntilCommit(shape, key);
    }

    private Uni<String> region(String shape, String key) {
        String ranOn = where();
        return Uni.createFrom().completionStage(() -> regions.enterAsync(shape, key))
                .onItem().delayIt().by(THINK)
                .chain(() -> Uni.createFrom().completionStage(() -> regions.leaveAsync(shape, key)))
                .replaceWith("ok on " + ranOn);
    }

    private Uni<String> regionUntilCommit(String shape, String key) {
        String ranOn = where();
        regions.enter(shape, key);
        regions.leaveBeforeCommit(shape, key);
        return Uni.createFrom().item("ok on " + ranOn).onItem().delayIt().by(THINK);
    }

    private static String where() {
        return Context.isOnEventLoopThread() ? "event loop" : "worker";
    }
}
