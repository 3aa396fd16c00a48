package dev.distlock.runtimes.shapes;

import dev.distlock.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * Shape 1: a locked call with no transaction of its own, a plain {@code @Transactional} repository
 * inside it (whose audit record takes a lock), and more work after the repository committed: the
 * region lasts until the locked method returns.
 */
@ApplicationScoped
public class Orders {

    @Inject
    Repository repository;
    @Inject
    Regions regions;

    @Locked("one:{key}")
    public void placeThenConfirm(String key) {
        guarded("plain-bean-inside", key);
    }

    /** The twin, without the lock. */
    public void placeThenConfirmUnlocked(String key) {
        guarded("plain-bean-inside-unlocked", key);
    }

    private void guarded(String shape, String key) {
        regions.enter(shape, key);
        repository.save(key);
        regions.think();
        regions.leave(shape, key);
    }
}
