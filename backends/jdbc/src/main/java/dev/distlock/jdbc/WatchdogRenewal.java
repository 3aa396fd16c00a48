package dev.distlock.jdbc;

import dev.distlock.spi.LockBackend.Later;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The renewal of a {@link JdbcBackend}'s watchdog leases, every third of their length while held.
 * Its own class because it keeps its own books (which leases are renewed, which renew late) and runs
 * on its own thread, apart from the grants, so that a grant waiting for a row can never delay it.
 */
final class WatchdogRenewal {

    private final JdbcTransactions transactions;
    private final LazyLockTables tables;
    private final long leaseMillis;
    /** Watchdog leases held now, renewed by {@link #renewAll()}. */
    private final Set<JdbcLease> renewed = ConcurrentHashMap.newKeySet();
    /** Leases whose last renewal failed (a row kept locked, a dead connection): renewed after the others. */
    private final Set<JdbcLease> lateToRenew = ConcurrentHashMap.newKeySet();
    private volatile Later later = (task, delayNanos) -> { };
    private volatile boolean renewing;
    private volatile boolean closed;

    WatchdogRenewal(JdbcTransactions transactions, LazyLockTables tables, long leaseMillis) {
        this.transactions = transactions;
        this.tables = tables;
        this.leaseMillis = leaseMillis;
    }

    void bind(Later later) {
        this.later = later;
    }

    /** Renews {@code lease} from now on, until it is released, lost or the backend closes. */
    void add(JdbcLease lease) {
        renewed.add(lease);
        startRenewing();
    }

    /** The lease was released: no longer renewed. */
    void forget(JdbcLease lease) {
        renewed.remove(lease);
        lateToRenew.remove(lease);
    }

    /** Leases renewed now. */
    int count() {
        return renewed.size();
    }

    void close() {
        closed = true;
        renewed.clear();
        lateToRenew.clear();
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
            transactions.renew(this::renewAll);
        }, TimeUnit.MILLISECONDS.toNanos(leaseMillis / 3));
    }

    /**
     * Extends every watchdog lease held; one that had ended is lost. Runs on the backend's renewal
     * thread, apart from acquisitions that may be waiting for a row, so that they cannot delay it past
     * the leases' end; each lease in a statement of its own, committed as it runs, and bounded: a
     * lease whose row another transaction keeps locked (a node cut off mid-grant on MariaDB, a forced
     * release waiting) fails its own renewal and waits its turn after the others from then on, so a
     * stuck statement of one lock never holds up the renewal of another.
     */
    private void renewAll() {
        if (closed) {
            return;
        }
        try {
            if (!renewed.isEmpty()) {
                renewEach();
            }
        } finally {
            scheduleRenewal();
        }
    }

    /**
     * Each lease in its own statement, those whose last renewal failed last; a lease whose renewal
     * fails now is tried once more at the end of the pass on another connection (the failure may have
     * been the connection's: a dead socket given up after its bound).
     */
    private void renewEach() {
        List<JdbcLease> inTurn = new ArrayList<>(renewed);
        inTurn.sort(Comparator.comparing(lateToRenew::contains));
        List<JdbcLease> failed = renew(inTurn);
        if (!failed.isEmpty() && !closed) {
            lateToRenew.addAll(renew(failed));
        }
    }

    /** Renews {@code leases} in turn: those that could not be. */
    private List<JdbcLease> renew(List<JdbcLease> leases) {
        List<JdbcLease> failed = new ArrayList<>();
        JdbcTransactions.Session session = null;
        try {
            for (JdbcLease lease : leases) {
                if (closed) {
                    break;
                }
                try {
                    if (session == null) {
                        session = transactions.renewalSession();
                    }
                    boolean extended = tables.tables().extend(session.connection(), lease.name(), lease.holder(), leaseMillis);
                    lateToRenew.remove(lease);
                    if (!extended) {
                        lease.lose();
                        forget(lease);
                    }
                } catch (SQLException | RuntimeException e) {
                    // Unrenewed, the lease runs on; the engine counts it lost if no check confirms it for a
                    // lease. The connection may be the reason: the next lease gets another.
                    failed.add(lease);
                    if (session != null) {
                        session.close();
                        session = null;
                    }
                }
            }
        } finally {
            if (session != null) {
                session.close();
            }
        }
        return failed;
    }
}
