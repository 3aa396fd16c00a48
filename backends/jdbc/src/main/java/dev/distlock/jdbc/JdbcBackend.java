package dev.distlock.jdbc;

import dev.distlock.LockMode;
import dev.distlock.LockServiceUnavailableException;
import dev.distlock.spi.BackendLease;
import dev.distlock.spi.LockBackend;
import dev.distlock.spi.LockPolicy;
import dev.distlock.spi.StoredLock;

import javax.sql.DataSource;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Locks in the application's database: a row per holder with a lease in the database's clock (see
 * {@link LockTables}). No connection is held while a lock is held: each grant, renewal, check and
 * release is a short piece of work on a connection of the backend's own, on the backend's own
 * threads, so it never joins the caller's transaction, and a JVM that dies leaves a row that ends
 * with its lease. A grant is one statement in auto-commit mode on PostgreSQL ({@link PostgresGrant})
 * and a transaction of several on H2 and MariaDB/MySQL; a release is one statement in auto-commit
 * mode on PostgreSQL (two for a lease that had ended; it does not wait for the disk, see {@link
 * LockTables#delete}) and a short transaction elsewhere; a check and a renewal are one statement in
 * auto-commit mode everywhere. A watchdog lease is renewed every third of its length while held
 * ({@link WatchdogRenewal}); a waiter polls, backing off from 2 to 50 ms (one waiter per key and
 * JVM: the others queue in the engine). A grant whose answer the caller never had (the connection
 * broke after the commit, the answer came late) is given back by {@link Grants}, so that it does not
 * keep the lock for a lease. The tables are opened on first need ({@link LazyLockTables}) and swept
 * of what nobody needs ({@link SweepSchedule}).
 */
public final class JdbcBackend implements LockBackend {

    public static final String DEFAULT_TABLE = "distlock_lock";
    public static final long DEFAULT_LEASE_MILLIS = 30_000;
    /** How long a name's row stays once nobody holds it and it issued no token: a day. */
    public static final long DEFAULT_NAME_EXPIRY_MILLIS = TimeUnit.DAYS.toMillis(1);
    private static final long FIRST_BACKOFF_MILLIS = 2;
    private static final long MAX_BACKOFF_MILLIS = 50;
    private static final long MIN_RENEWAL_BOUND_MILLIS = 100;

    private final LazyLockTables tables;
    private final long leaseMillis;
    private final long answerGraceMillis;
    private final JdbcTransactions transactions;
    private final Grants grants;
    /**
     * What this backend's holder ids start with (random, one per backend): so that {@link #inspect}
     * tells this JVM's holders from others'. Followed by a counter; 38 characters at most.
     */
    private final String holderPrefix = UUID.randomUUID().toString().substring(0, 18) + ":";
    private final AtomicLong holderIds = new AtomicLong();
    private final WatchdogRenewal renewal;
    private final SweepSchedule sweeps;

    /**
     * @param dataSource        where the lock tables are (created if absent)
     * @param table             the holders' table; the names' table is {@code <table>_name}
     * @param leaseMillis       how long a watchdog lease lasts unrenewed (a JVM that dies holds its locks this long)
     * @param answerGraceMillis how long one statement round may take before a call fails
     */
    public JdbcBackend(DataSource dataSource, String table, long leaseMillis, long answerGraceMillis) {
        this(constant(Objects.requireNonNull(dataSource, "dataSource")), table, leaseMillis, answerGraceMillis);
    }

    /**
     * @param dataSources where the DataSource comes from: asked on a caller's thread when first needed
     *                    (a JNDI name such as {@code java:app/...} can only be looked up there, not on
     *                    the backend's own threads), until it answers; may throw
     */
    public JdbcBackend(Supplier<DataSource> dataSources, String table, long leaseMillis, long answerGraceMillis) {
        this(dataSources, table, leaseMillis, answerGraceMillis, DEFAULT_NAME_EXPIRY_MILLIS);
    }

    /**
     * @param nameExpiryMillis how long a name's row stays once nobody holds it and it issued no
     *                         fencing token, and a holder's row once its lease ended; a sweep removes
     *                         them, so that names locked once do not stay in the table for ever
     */
    public JdbcBackend(Supplier<DataSource> dataSources, String table, long leaseMillis, long answerGraceMillis,
                       long nameExpiryMillis) {
        this(dataSources, table, leaseMillis, answerGraceMillis, nameExpiryMillis, true);
    }

    /**
     * A backend that leaves the row of a grant whose answer was lost in the table until its lease
     * ends ({@link Grants}): for the twin of the lost-answer tests only, which shows what the
     * give-back prevents. Not a setting: no application may keep such rows.
     */
    static JdbcBackend keepingLostGrants(DataSource dataSource, String table, long leaseMillis, long answerGraceMillis) {
        return new JdbcBackend(constant(dataSource), table, leaseMillis, answerGraceMillis, DEFAULT_NAME_EXPIRY_MILLIS, false);
    }

    private JdbcBackend(Supplier<DataSource> dataSources, String table, long leaseMillis, long answerGraceMillis,
                        long nameExpiryMillis, boolean givesBackLostGrants) {
        if (nameExpiryMillis < 1_000) {
            throw new IllegalArgumentException("the name expiry must be at least 1000 ms, was " + nameExpiryMillis);
        }
        Objects.requireNonNull(dataSources, "dataSources");
        LockTables.checkTableName(table);
        if (leaseMillis < 300 || answerGraceMillis <= 0) {
            throw new IllegalArgumentException("the lease must be at least 300 ms and the answer grace > 0, were "
                    + leaseMillis + " and " + answerGraceMillis);
        }
        this.leaseMillis = leaseMillis;
        this.answerGraceMillis = answerGraceMillis;
        this.tables = new LazyLockTables(dataSources, table, answerGraceMillis);
        this.transactions = new JdbcTransactions(this::dataSource, answerGraceMillis,
                Math.max(MIN_RENEWAL_BOUND_MILLIS, Math.min(answerGraceMillis, leaseMillis / 6)));
        this.grants = new Grants(this, transactions, answerGraceMillis, givesBackLostGrants);
        this.renewal = new WatchdogRenewal(transactions, tables, leaseMillis);
        this.sweeps = new SweepSchedule(transactions, tables, nameExpiryMillis);
    }

    @Override
    public String displayName() {
        return "the database";
    }

    @Override
    public void identify(String nodeName, String keyPrefix) {
        tables.name(nodeName);
    }

    @Override
    public void bind(Later later) {
        grants.bind(later);
        renewal.bind(later);
        sweeps.start(later);
    }

    @Override
    public int maxNameLength() {
        return LockTables.MAX_NAME_LENGTH;
    }

    @Override
    public long leaseMillis(LockPolicy policy) {
        return policy.watchdog() ? leaseMillis : policy.leaseMillis();
    }

    private static Supplier<DataSource> constant(DataSource dataSource) {
        return () -> dataSource;
    }

    /** The DataSource; found on the calling thread the first time ({@link LazyLockTables}). */
    DataSource dataSource() {
        return tables.dataSource();
    }

    /** The holders' rows under {@code namePrefix} whose lease has not ended ({@link JdbcLockListing}). */
    @Override
    public List<StoredLock> inspect(String namePrefix, int limit) {
        return answer(connection -> JdbcLockListing.list(tables(), connection, namePrefix, limit, holderPrefix),
                "list the locks under '" + namePrefix + "'");
    }

    /** Deletes the name's holders in one transaction that locks the name's row as a grant does. */
    @Override
    public List<StoredLock.Holder> forceRelease(String name, boolean onlyIfFenced) {
        try {
            return answer(connection -> JdbcForcedRelease.end(tables(), connection, name, onlyIfFenced), "end lock '" + name + "'");
        } catch (LockServiceUnavailableException e) {
            if (e.getCause() instanceof IllegalStateException refused) {
                throw refused;
            }
            throw e;
        }
    }

    @Override
    public Optional<String> problem() {
        try {
            answer(connection -> tables().now(connection), "answer");
            return Optional.empty();
        } catch (LockServiceUnavailableException e) {
            return Optional.of(e.getMessage());
        } catch (RuntimeException e) {
            return Optional.of("The lock database does not answer: " + e);
        }
    }

    /**
     * One transaction on the caller's behalf, waited for at most the answer grace.
     *
     * @throws LockServiceUnavailableException naming {@code what} when it fails, is late or is interrupted
     */
    private <T> T answer(JdbcTransactions.Work<T> work, String what) {
        dataSource();
        try {
            return run(work).get(answerGraceMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockServiceUnavailableException("Interrupted while waiting for the lock database to " + what, e);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new LockServiceUnavailableException("The lock database did not " + what + " within " + answerGraceMillis + " ms: " + cause, cause);
        }
    }

    @Override
    public BackendLease acquire(String name, LockPolicy policy, long deadlineNanos) throws InterruptedException {
        dataSource(); // on the caller's thread: where a java:app name can be looked up
        String holder = holderPrefix + holderIds.incrementAndGet();
        boolean exclusive = policy.mode() != LockMode.READ;
        long lease = leaseMillis(policy);
        long backoff = FIRST_BACKOFF_MILLIS;
        while (true) {
            // A failure or an answer that comes too late ends the acquisition: the holder id is used by no other grant.
            Long token = grants.grant(name, holder, exclusive, lease, policy.fenced());
            if (token != null) {
                JdbcLease granted = new JdbcLease(this, name, holder, policy.watchdog(), policy.fenced() ? token : 0);
                if (granted.renewed()) {
                    renewal.add(granted);
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

    /** The tables, opened on first need. */
    LockTables tables() throws SQLException {
        return tables.tables();
    }

    /** The tables if they are open, else {@code null}. */
    LockTables openedTables() {
        return tables.openedTables();
    }

    /** Holders renewed by this backend now; for tests. */
    public int renewedCount() {
        return renewal.count();
    }

    @Override
    public void close() {
        sweeps.close();
        grants.close();
        renewal.close();
        transactions.close();
    }

    /** The lease was released: no longer renewed. */
    void forget(JdbcLease lease) {
        renewal.forget(lease);
    }

    /** The holder's row is still in force, for {@link JdbcLease#isHeld}; fails after the answer grace. */
    CompletableFuture<Boolean> holds(String name, String holder) {
        return answered(transactions.runInAutoCommit(connection -> tables().holds(connection, name, holder)));
    }

    /**
     * Deletes the holder's row: whether it was still in force; fails after the answer grace. On
     * PostgreSQL in auto-commit mode, one statement and one round trip while the lease is in force;
     * elsewhere in a transaction, as before (on H2 auto-commit gained nothing measurable).
     */
    CompletableFuture<Boolean> delete(String name, String holder) {
        JdbcTransactions.Work<Boolean> delete = connection -> tables().delete(connection, name, holder);
        LockTables opened = tables.openedTables();
        return answered(opened != null && opened.grantsInOneStatement() ? transactions.runInAutoCommit(delete) : run(delete));
    }

    /**
     * A database cut off mid-statement may keep a connection waiting for minutes (a dead socket: the
     * driver waits for TCP to give up): the caller is answered after the answer grace instead. The
     * statement may still run later; a late delete only removes a row that has expired meanwhile.
     */
    private <T> CompletableFuture<T> answered(CompletableFuture<T> statement) {
        return statement.orTimeout(answerGraceMillis, TimeUnit.MILLISECONDS);
    }

    private <T> CompletableFuture<T> run(JdbcTransactions.Work<T> work) {
        return transactions.run(work);
    }
}
