package dev.distlock.jdbc;

import dev.distlock.spi.BackendLease;

import java.util.concurrent.CompletableFuture;

/** One holder's row in a {@link JdbcBackend}'s table. */
final class JdbcLease implements BackendLease {

    private final JdbcBackend backend;
    private final String name;
    private final String holder;
    private final boolean renewed;
    private final long token;
    /** A renewal found the lease ended. */
    private volatile boolean lost;

    JdbcLease(JdbcBackend backend, String name, String holder, boolean renewed, long token) {
        this.backend = backend;
        this.name = name;
        this.holder = holder;
        this.renewed = renewed;
        this.token = token;
    }

    String name() {
        return name;
    }

    String holder() {
        return holder;
    }

    /** A renewal found the row gone or ended. */
    void lose() {
        lost = true;
    }

    @Override
    public long fencingToken() {
        return token;
    }

    @Override
    public boolean renewed() {
        return renewed;
    }

    @Override
    public CompletableFuture<Boolean> isHeld() {
        if (lost) {
            return CompletableFuture.completedFuture(false);
        }
        return backend.holds(name, holder);
    }

    @Override
    public CompletableFuture<Boolean> release() {
        backend.forget(this);
        return backend.delete(name, holder);
    }
}
