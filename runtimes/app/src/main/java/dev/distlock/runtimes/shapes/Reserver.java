package dev.distlock.runtimes.shapes;

import dev.distlock.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

/** The locked calls inside the caller's transaction, for {@link Reservations}. */
@ApplicationScoped
public class Reserver {

    @Inject
    Repository repository;
    @Inject
    Regions regions;

    /** Shape 2: locked inside the caller's transaction, with an audit record in a transaction of its own. */
    @Locked("two:{key}")
    public void reserve(String key) {
        guarded("requires-new-inside", key);
    }

    /** The twin, without the lock. */
    public void reserveUnlocked(String key) {
        guarded("requires-new-inside-unlocked", key);
    }

    private void guarded(String shape, String key) {
        regions.enter(shape, key);
        regions.leaveBeforeCommit(shape, key);
        repository.saveApart(key);
    }

    /** Shape 3: fails inside the caller's transaction, which is then marked rollback-only. */
    @Locked("three:{key}")
    @Transactional
    public void reserveFailing(String key) {
        throw new IllegalStateException("out of stock");
    }

    /** Takes the key inside the caller's transaction, which keeps it until it completes. */
    @Locked("three:{key}")
    public void take(String key) {
        regions.think();
    }

    /** Called where the caller's own transaction holds the key already: must never wait for it. */
    @Locked(value = "three:{key}", waitTime = 1_000)
    public String touch(String key) {
        return "ok";
    }
}
