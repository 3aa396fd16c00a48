package dev.distlock.testing;

import dev.distlock.Locked;
import dev.distlock.ReadLocked;
import dev.distlock.WriteLocked;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.concurrent.Callable;

/**
 * The locked bean of the tests that go through CDI: each method runs the work it is given while it
 * holds its lock, so a test can look at the lock from inside and gets the work's result back.
 * Deploy it like any bean ({@code DistlockWeld.start(config, Stock.class)}, {@code @AddBeanClasses}).
 */
@ApplicationScoped
public class Stock {

    /** Under the exclusive lock {@code stock:{sku}}. */
    @Locked("stock:{sku}")
    public <T> T reserve(String sku, Callable<T> work) throws Exception {
        return work.call();
    }

    /** Under the read lock {@code catalog}. */
    @ReadLocked("catalog")
    public <T> T read(Callable<T> work) throws Exception {
        return work.call();
    }

    /** Under the write lock {@code catalog}. */
    @WriteLocked("catalog")
    public <T> T reprice(Callable<T> work) throws Exception {
        return work.call();
    }
}
