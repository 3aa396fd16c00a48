package dev.distlock.memory;

import dev.distlock.spi.LockBackend;
import dev.distlock.spi.BackendLease;
import dev.distlock.spi.LockPolicy;
import dev.distlock.spi.StoredLock;
import dev.distlock.LockMode;
import dev.distlock.LockServiceUnavailableException;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A lock store in this JVM's memory: what {@code distlock.backend=in-memory} and
 * {@link dev.distlock.memory.InMemoryLocks} use in applications' tests, and distlock's own tests of the
 * engine above the backend SPI (queueing, handoff, transactions, lost leases). Exclusive and
 * read/write locks, fixed leases that end on time, renewed leases that last until released,
 * fencing tokens that only grow. A test can lose a lock (the store forgets it, as Redis can) and
 * take the store down.
 *
 * <p>Engines that share one {@code InMemoryLockBackend} see each other's locks, like two JVMs on one
 * Redis. Never a stand-in for a real store's behaviour under failure: that is the contract suite's.
 * Waiters park on a {@link ReentrantLock}'s condition, so a virtual thread waiting here leaves its
 * carrier free.
 */
public final class InMemoryLockBackend implements LockBackend {

    private final ReentrantLock monitor = new ReentrantLock();
    /** Signalled whenever a holder leaves or the store comes back up. */
    private final Condition changed = monitor.newCondition();
    /** Guarded by monitor. */
    private final Map<String, Holders> locks = new HashMap<>();
    /** Guarded by monitor. */
    private final Map<String, Long> tokens = new HashMap<>();
    private final long renewedLeaseMillis;
    private volatile boolean down;
    /** The name of the server whose engine uses this store ({@link #identify}); kept with each lease. */
    private volatile String nodeName;
    /** Guarded by monitor. */
    private long acquisitions;

    public InMemoryLockBackend() {
        this(30_000);
    }

    /** @param renewedLeaseMillis what {@link #leaseMillis} answers for a watchdog lease */
    public InMemoryLockBackend(long renewedLeaseMillis) {
        this.renewedLeaseMillis = renewedLeaseMillis;
    }

    /** Who holds one name: one writer (exclusive or write), or readers. */
    private static final class Holders {
        Lease writer;
        final Set<Lease> readers = new HashSet<>();

        boolean isEmpty() {
            return writer == null && readers.isEmpty();
        }
    }

    final class Lease implements BackendLease {
        final String name;
        final LockMode mode;
        /** The acquisition's number in this store, its id in {@link #inspect}. */
        private final long id;
        private final boolean renewed;
        private final long token;
        /** {@link Long#MAX_VALUE} for a renewed lease. */
        private final long endsAtNanos;
        private final String node = nodeName;

        private Lease(String name, LockMode mode, long id, boolean renewed, long token, long endsAtNanos) {
            this.name = name;
            this.mode = mode;
            this.id = id;
            this.renewed = renewed;
            this.token = token;
            this.endsAtNanos = endsAtNanos;
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
            if (down) {
                return CompletableFuture.failedFuture(new IllegalStateException("the memory store is down"));
            }
            monitor.lock();
            try {
                return CompletableFuture.completedFuture(holds(this));
            } finally {
                monitor.unlock();
            }
        }

        @Override
        public CompletableFuture<Boolean> release() {
            if (down) {
                return CompletableFuture.failedFuture(new IllegalStateException("the memory store is down"));
            }
            monitor.lock();
            try {
                boolean held = holds(this);
                if (held) {
                    Holders holders = locks.get(name);
                    if (holders.writer == this) {
                        holders.writer = null;
                    } else {
                        holders.readers.remove(this);
                    }
                    if (holders.isEmpty()) {
                        locks.remove(name);
                    }
                    changed.signalAll();
                }
                return CompletableFuture.completedFuture(held);
            } finally {
                monitor.unlock();
            }
        }
    }

    @Override
    public String displayName() {
        return "the memory store";
    }

    @Override
    public long leaseMillis(LockPolicy policy) {
        return policy.watchdog() ? renewedLeaseMillis : policy.leaseMillis();
    }

    @Override
    public BackendLease acquire(String name, LockPolicy policy, long deadlineNanos) throws InterruptedException {
        monitor.lock();
        try {
            while (true) {
                if (down) {
                    throw new LockServiceUnavailableException("Could not acquire lock '" + name
                            + "': the memory store is down; the method did not run.", null);
                }
                long now = System.nanoTime();
                Holders holders = locks.computeIfAbsent(name, ignored -> new Holders());
                long nextEnd = endExpired(holders, now);
                boolean free = policy.mode() == LockMode.READ ? holders.writer == null : holders.isEmpty();
                if (free) {
                    long token = policy.fenced() ? tokens.merge(name, 1L, Long::sum) : 0;
                    long endsAt = policy.watchdog() ? Long.MAX_VALUE : now + TimeUnit.MILLISECONDS.toNanos(policy.leaseMillis());
                    Lease lease = new Lease(name, policy.mode(), acquisitions + 1, policy.watchdog(), token, endsAt);
                    if (policy.mode() == LockMode.READ) {
                        holders.readers.add(lease);
                    } else {
                        holders.writer = lease;
                    }
                    acquisitions++;
                    return lease;
                }
                if (holders.isEmpty()) {
                    locks.remove(name);
                }
                long waitNanos = Math.min(deadlineNanos - now, nextEnd - now);
                if (deadlineNanos - now <= 0) {
                    return null;
                }
                changed.awaitNanos(Math.max(1, waitNanos));
            }
        } finally {
            monitor.unlock();
        }
    }

    /** Drops holders whose fixed lease has ended; when the next one ends ({@link Long#MAX_VALUE} if never). Guarded by monitor. */
    private long endExpired(Holders holders, long now) {
        long nextEnd = Long.MAX_VALUE;
        if (holders.writer != null) {
            if (now - holders.writer.endsAtNanos >= 0) {
                holders.writer = null;
            } else {
                nextEnd = holders.writer.endsAtNanos;
            }
        }
        for (var it = holders.readers.iterator(); it.hasNext(); ) {
            Lease reader = it.next();
            if (now - reader.endsAtNanos >= 0) {
                it.remove();
            } else {
                nextEnd = Math.min(nextEnd, reader.endsAtNanos);
            }
        }
        return nextEnd;
    }

    /** Guarded by monitor. */
    private boolean holds(Lease lease) {
        Holders holders = locks.get(lease.name);
        if (holders == null) {
            return false;
        }
        endExpired(holders, System.nanoTime());
        return holders.writer == lease || holders.readers.contains(lease);
    }

    @Override
    public void identify(String nodeName, String keyPrefix) {
        this.nodeName = nodeName;
    }

    /**
     * The locks held under {@code namePrefix}: every holder is in this JVM. A holder's id is the
     * number of its acquisition in this store; the lease left is a fixed lease's (renewed ones do not
     * expire here).
     */
    @Override
    public List<StoredLock> inspect(String namePrefix, int limit) {
        if (down) {
            throw new LockServiceUnavailableException("the memory store is down", null);
        }
        monitor.lock();
        try {
            long now = System.nanoTime();
            List<StoredLock> held = new ArrayList<>();
            for (Map.Entry<String, Holders> entry : new TreeMap<>(locks).entrySet()) {
                Holders holders = entry.getValue();
                endExpired(holders, now);
                if (held.size() == limit || !entry.getKey().startsWith(namePrefix) || holders.isEmpty()) {
                    continue;
                }
                List<Lease> leases = new ArrayList<>(holders.readers);
                if (holders.writer != null) {
                    leases.add(holders.writer);
                }
                List<StoredLock.Holder> ids = new ArrayList<>();
                long endsAt = Long.MAX_VALUE;
                for (Lease lease : leases) {
                    ids.add(StoredLock.Holder.of(Long.toString(lease.id), lease.node));
                    endsAt = Math.min(endsAt, lease.endsAtNanos);
                }
                LockMode mode = holders.writer != null ? holders.writer.mode : LockMode.READ;
                held.add(new StoredLock(entry.getKey(), mode, ids, true,
                        endsAt == Long.MAX_VALUE ? StoredLock.NO_EXPIRY : TimeUnit.NANOSECONDS.toMillis(endsAt - now)));
            }
            return held;
        } finally {
            monitor.unlock();
        }
    }

    /** Ends {@code name}'s holders; with {@code onlyIfFenced}, only if each took it with a fencing token. */
    @Override
    public List<StoredLock.Holder> forceRelease(String name, boolean onlyIfFenced) {
        if (down) {
            throw new LockServiceUnavailableException("the memory store is down", null);
        }
        monitor.lock();
        try {
            Holders holders = locks.get(name);
            if (holders == null) {
                return List.of();
            }
            endExpired(holders, System.nanoTime());
            List<Lease> leases = new ArrayList<>(holders.readers);
            if (holders.writer != null) {
                leases.add(holders.writer);
            }
            List<StoredLock.Holder> ids = new ArrayList<>();
            for (Lease lease : leases) {
                if (onlyIfFenced && lease.token == 0) {
                    throw new IllegalStateException("acquisition " + lease.id + " holds '" + name + "' without a fencing token");
                }
                ids.add(StoredLock.Holder.of(Long.toString(lease.id), lease.node));
            }
            locks.remove(name);
            changed.signalAll();
            return ids;
        } finally {
            monitor.unlock();
        }
    }

    /** The store forgets {@code name}'s holders, as Redis can on a restart or failover. */
    public void lose(String name) {
        monitor.lock();
        try {
            locks.remove(name);
            changed.signalAll();
        } finally {
            monitor.unlock();
        }
    }

    /** While down, every question fails, as an unreachable store's would. */
    public void down(boolean isDown) {
        down = isDown;
        if (!isDown) {
            monitor.lock();
            try {
                changed.signalAll();
            } finally {
                monitor.unlock();
            }
        }
    }

    /** Names held now. */
    public Set<String> held() {
        monitor.lock();
        try {
            Set<String> names = new HashSet<>();
            locks.forEach((name, holders) -> {
                endExpired(holders, System.nanoTime());
                if (!holders.isEmpty()) {
                    names.add(name);
                }
            });
            return names;
        } finally {
            monitor.unlock();
        }
    }

    /** How many times a lock was taken in the store (handed-on holds are not). */
    public long acquisitions() {
        monitor.lock();
        try {
            return acquisitions;
        } finally {
            monitor.unlock();
        }
    }

    /** An exclusive, renewed lease on {@code name}, taken at once; for tests that need a tenure. */
    public BackendLease leaseFor(String name) {
        try {
            return acquire(name, new LockPolicy("test", LockMode.EXCLUSIVE, 0, LockPolicy.WATCHDOG_LEASE,
                    dev.distlock.OnTimeout.FAIL), 0);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
