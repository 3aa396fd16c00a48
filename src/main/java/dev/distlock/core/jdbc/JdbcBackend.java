package dev.distlock.core.jdbc;

import dev.distlock.LockMode;
import dev.distlock.LockServiceUnavailableException;
import dev.distlock.core.BackendLease;
import dev.distlock.core.LockBackend;
import dev.distlock.core.LockPolicy;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Locks in the application's database: a row per holder with a lease in the database's clock (see
 * {@link LockTables}). No connection is held while a lock is held: each grant, renewal, check and
 * release is one short transaction on a connection of the backend's own, on the backend's own
 * threads, so it never joins the caller's transaction, and a JVM that dies leaves a row that ends
 * with its lease. A watchdog lease is renewed every third of its length while held; a waiter polls,
 * backing off from 2 to 50 ms (one waiter per key and JVM: the others queue in the engine).
 */
public final class JdbcBackend implements LockBackend {

    public static final String DEFAULT_TABLE = "distlock_lock";
    public static final long DEFAULT_LEASE_MILLIS = 30_000;
    private static final long FIRST_BACKOFF_MILLIS = 2;
    private static final long MAX_BACKOFF_MILLIS = 50;
    private static final int MAX_TRANSACTION_ATTEMPTS = 5;
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final DataSource dataSource;
    private final String table;
    private final long leaseMillis;
    private final long answerGraceMillis;
    private final ExecutorService io;
    /** Watchdog leases held now, renewed by {@link #renewAll()}. */
    private final Set<Lease> renewed = ConcurrentHashMap.newKeySet();
    private volatile LockTables tables;
    private volatile Later later = (task, delayNanos) -> { };
    private volatile boolean renewing;
    private volatile boolean closed;

    /**
     * @param dataSource        where the lock tables are (created if absent)
     * @param table             the holders' table; the names' table is {@code <table>_name}
     * @param leaseMillis       how long a watchdog lease lasts unrenewed (a JVM that dies holds its locks this long)
     * @param answerGraceMillis how long one statement round may take before a call fails
     */
    public JdbcBackend(DataSource dataSource, String table, long leaseMillis, long answerGraceMillis) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        LockTables.checkTableName(table);
        this.table = table;
        if (leaseMillis < 300 || answerGraceMillis <= 0) {
            throw new IllegalArgumentException("the lease must be at least 300 ms and the answer grace > 0, were "
                    + leaseMillis + " and " + answerGraceMillis);
        }
        this.leaseMillis = leaseMillis;
        this.answerGraceMillis = answerGraceMillis;
        this.io = Executors.newFixedThreadPool(4, runnable -> {
            Thread thread = new Thread(runnable, "distlock-jdbc-" + THREADS.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    @Override
    public String displayName() {
        return "the database";
    }

    @Override
    public void bind(Later later) {
        this.later = later;
    }

    @Override
    public long leaseMillis(LockPolicy policy) {
        return policy.watchdog() ? leaseMillis : policy.leaseMillis();
    }

    @Override
    public Optional<String> problem() {
        try {
            run(connection -> tables().now(connection)).get(answerGraceMillis, TimeUnit.MILLISECONDS);
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of("interrupted");
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            return Optional.of("The lock database does not answer: " + cause);
        }
    }

    @Override
    public BackendLease acquire(String name, LockPolicy policy, long deadlineNanos) throws InterruptedException {
        String holder = UUID.randomUUID().toString();
        boolean exclusive = policy.mode() != LockMode.READ;
        long lease = leaseMillis(policy);
        long backoff = FIRST_BACKOFF_MILLIS;
        while (true) {
            Future<Long> attempt = run(connection -> grant(connection, name, holder, exclusive, lease, policy.fenced()));
            Long token;
            try {
                token = attempt.get(answerGraceMillis, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                giveBackIfGranted(attempt, name, holder);
                throw e;
            } catch (TimeoutException e) {
                giveBackIfGranted(attempt, name, holder);
                throw new LockServiceUnavailableException("The database did not answer within " + answerGraceMillis
                        + " ms while acquiring lock '" + name + "'; the method did not run.", e);
            } catch (ExecutionException e) {
                throw new LockServiceUnavailableException("Could not acquire lock '" + name + "': the database failed ("
                        + e.getCause() + "); the method did not run.", e.getCause());
            }
            if (token != null) {
                Lease granted = new Lease(name, holder, policy.watchdog(), policy.fenced() ? token : 0);
                if (granted.renewed) {
                    renewed.add(granted);
                    startRenewing();
                }
                return granted;
            }
            long remainingMillis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
            if (!policy.waitsForever() && remainingMillis <= 0) {
                return null;
            }
            Thread.sleep(policy.waitsForever() ? backoff : Math.max(1, Math.min(backoff, remainingMillis)));
            backoff = Math.min(backoff * 2, MAX_BACKOFF_MILLIS);
        }
    }

    /** One grant decision: the token (0 unfenced) if granted, {@code null} if another holder excludes this one. */
    private Long grant(Connection connection, String name, String holder, boolean exclusive, long lease, boolean fenced)
            throws SQLException {
        LockTables t = tables();
        long lastToken = t.lockName(connection, name);
        // Read once the name's row is locked: a time read before the wait would shorten the new lease.
        long now = t.now(connection);
        t.dropEnded(connection, name, now);
        if (t.blocked(connection, name, exclusive)) {
            return null;
        }
        long token = fenced ? t.nextToken(connection, name, lastToken, now) : 0;
        t.insertHolder(connection, name, holder, exclusive, now + lease, token);
        return token;
    }

    /** An attempt given up on may still commit: its lock goes straight back. */
    private void giveBackIfGranted(Future<Long> attempt, String name, String holder) {
        CompletableFuture.runAsync(() -> {
            try {
                if (attempt.get() != null) {
                    run(connection -> tables().delete(connection, name, holder));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException e) {
                // not granted
            }
        }, io);
    }

    private void startRenewing() {
        if (!renewing) {
            synchronized (this) {
                if (!renewing) {
                    renewing = true;
                    scheduleRenewal();
                }
            }
        }
    }

    private void scheduleRenewal() {
        later.run(() -> {
            try {
                io.execute(this::renewAll);
            } catch (RejectedExecutionException closedMeanwhile) {
                // closed
            }
        }, TimeUnit.MILLISECONDS.toNanos(leaseMillis / 3));
    }

    /** Extends every watchdog lease held; one that had ended is lost. Runs on the backend's thread. */
    private void renewAll() {
        if (closed) {
            return;
        }
        try {
            if (!renewed.isEmpty()) {
                inTransaction(connection -> {
                    long now = tables().now(connection);
                    for (Lease lease : renewed) {
                        if (!tables().extend(connection, lease.name, lease.holder, now, now + leaseMillis)) {
                            lease.lost = true;
                            renewed.remove(lease);
                        }
                    }
                    return null;
                });
            }
        } catch (SQLException | RuntimeException e) {
            // Unrenewed leases run on; the engine counts them lost if no check confirms them for a lease.
        } finally {
            scheduleRenewal();
        }
    }

    private LockTables tables() throws SQLException {
        LockTables current = tables;
        if (current == null) {
            synchronized (this) {
                current = tables;
                if (current == null) {
                    current = LockTables.open(dataSource, table);
                    tables = current;
                }
            }
        }
        return current;
    }

    private interface Work<T> {
        T in(Connection connection) throws SQLException;
    }

    /** Runs {@code work} in one transaction on the backend's thread. */
    private <T> CompletableFuture<T> run(Work<T> work) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            io.execute(() -> {
                try {
                    result.complete(inTransaction(work));
                } catch (Throwable e) {
                    result.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new LockServiceUnavailableException("distlock's database backend is closed", e));
        }
        return result;
    }

    /** One committed transaction, tried again when the database rolls it back for a deadlock or a duplicate key. */
    private <T> T inTransaction(Work<T> work) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(false);
            try {
                for (int attempt = 1; ; attempt++) {
                    try {
                        T result = work.in(connection);
                        connection.commit();
                        return result;
                    } catch (SQLException e) {
                        rollbackQuietly(connection, e);
                        if (attempt < MAX_TRANSACTION_ATTEMPTS && LockTables.retryable(e)) {
                            continue;
                        }
                        throw e;
                    } catch (RuntimeException e) {
                        rollbackQuietly(connection, e);
                        throw e;
                    }
                }
            } finally {
                connection.setAutoCommit(autoCommit);
            }
        }
    }

    private static void rollbackQuietly(Connection connection, Exception cause) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    /** Holders renewed by this backend now; for tests. */
    public int renewedCount() {
        return renewed.size();
    }

    @Override
    public void close() {
        closed = true;
        renewed.clear();
        io.shutdownNow();
    }

    /** One holder's row. */
    private final class Lease implements BackendLease {
        final String name;
        final String holder;
        final boolean renewed;
        private final long token;
        /** A renewal found the lease ended. */
        volatile boolean lost;

        Lease(String name, String holder, boolean renewed, long token) {
            this.name = name;
            this.holder = holder;
            this.renewed = renewed;
            this.token = token;
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
            return run(connection -> tables().holds(connection, name, holder));
        }

        @Override
        public CompletableFuture<Boolean> release() {
            JdbcBackend.this.renewed.remove(this);
            return run(connection -> tables().delete(connection, name, holder));
        }
    }
}
