package dev.distlock.testing;

import dev.distlock.LockListener;
import dev.distlock.LockMode;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A listener that keeps the names of the locks it was told were lost, in order. */
public final class LostLocks implements LockListener {

    private final List<String> keys = new CopyOnWriteArrayList<>();

    @Override
    public void lost(String key, LockMode mode) {
        keys.add(key);
    }

    public boolean contains(String key) {
        return keys.contains(key);
    }

    /** The lost locks so far. */
    public List<String> keys() {
        return List.copyOf(keys);
    }
}
