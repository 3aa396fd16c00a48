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
    private final Map<String, MemoryHolders> locks = new HashMap<>();
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

    /** Whether {@code lease} still holds its name; fails while the store is down. */
    CompletableFuture<Boolean> isHeld(MemoryLease lease) {
        if (down) {
            return CompletableFuture.failedFuture(new IllegalStateException("the memory store is down"));
        }
        monitor.lock();
        try {
            return CompletableFuture.completedFuture(holds(lease));
        } finally {
            monitor.unlock();
        }
    }

    /** Ends {@code lease}: whether it still held its name; fails while the store is down. */
    CompletableFuture<Boolean> release(MemoryLease lease) {
        if (down) {
            return CompletableFuture.failedFuture(new IllegalStateException("the memory store is down"));
        }
        monitor.lock();
        try {
            boolean held = holds(lease);
            if (held) {
                MemoryHolders holders = locks.get(lease.name);
                holders.remove(lease);
                if (holders.isEmpty()) {
                    locks.remove(lease.name);
                }
                changed.signalAll();
            }
            return CompletableFuture.completedFuture(held);
        } finally {
            monitor.unlock();
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
                MemoryHolders holders = locks.computeIfAbsent(name, ignored -> new MemoryHolders());
                long nextEnd = holders.endExpired(now);
                boolean free = policy.mode() == LockMode.READ ? holders.writer == null : holders.isEmpty();
                if (free) {
                    long token = policy.fenced() ? tokens.merge(name, 1L, Long::sum) : 0;
                    long endsAt = policy.watchdog() ? Long.MAX_VALUE : now + TimeUnit.MILLISECONDS.toNanos(policy.leaseMillis());
                    MemoryLease lease = new MemoryLease(this, name, policy.mode(), acquisitions + 1, policy.watchdog(), token, endsAt,
                            nodeName);
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

    /** Guarded by monitor. */
    private boolean holds(MemoryLease lease) {
        MemoryHolders holders = locks.get(lease.name);
        if (holders == null) {
            return false;
        }
        holders.endExpired(System.nanoTime());
        return holders.contains(lease);
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
            for (Map.Entry<String, MemoryHolders> entry : new TreeMap<>(locks).entrySet()) {
                MemoryHolders holders = entry.getValue();
                holders.endExpired(now);
                if (held.size() == limit || !entry.getKey().startsWith(namePrefix) || holders.isEmpty()) {
                    continue;
                }
                List<StoredLock.Holder> ids = new ArrayList<>();
                long endsAt = Long.MAX_VALUE;
                for (MemoryLease lease : holders.all()) {
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
            MemoryHolders holders = locks.get(name);
            if (holders == null) {
                return List.of();
            }
            holders.endExpired(System.nanoTime());
            List<StoredLock.Holder> ids = new ArrayList<>();
            for (MemoryLease lease : holders.all()) {
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
                holders.endExpired(System.nanoTime());
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
