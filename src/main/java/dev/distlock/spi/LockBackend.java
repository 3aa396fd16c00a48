package dev.distlock.spi;

import dev.distlock.LockServiceUnavailableException;

import java.util.List;
import java.util.Optional;

/**
 * Where a lock lives: Redis, ZooKeeper, the database. The engine (owners,
 * transactions, local queueing and handoff, the lease watch, errors, listeners) is written once above
 * this interface; a backend only takes a named lock, says whether it still holds it, and gives it
 * back. Every backend must pass the contract suite of distlock's test kit
 * ({@code dev.distlock.testkit.backend.LockBackendContract}); see docs/writing-a-backend.md.
 *
 * <p>Names arrive already prefixed and encoded ({@code distlock:lock:stock:A}); a backend maps them
 * to its own keys or paths one to one. An exclusive and a read/write lock never share a name (the
 * engine puts them in different namespaces), so a backend may keep them apart however it likes.
 */
public interface LockBackend extends AutoCloseable {

    /** For messages: {@code Redis}, {@code ZooKeeper}, {@code the database}. */
    String displayName();

    /** Called once by the engine that uses the backend, before any acquisition: its timer. */
    default void bind(Later later) {
    }

    /**
     * Called once by the engine that uses the backend, before {@link #bind} and any acquisition: the
     * name of this server ({@link NodeName}), to keep in the store beside each holder it takes, in
     * the same writes as the holder (never an extra round trip on the lock path), so that
     * {@link #inspect} and {@link #forceRelease} can say which server holds; and the engine's key
     * prefix, under which a backend may keep what it needs besides the locks
     * ({@code <prefix>:node:...}, never in the {@code :lock:} or {@code :rw:} namespaces).
     */
    default void identify(String nodeName, String keyPrefix) {
    }

    /**
     * Takes {@code name} in {@code policy.mode()} for a new holder, waiting at most until
     * {@code deadlineNanos} ({@link System#nanoTime()}; {@link Long#MAX_VALUE} waits forever).
     * With {@code policy.fenced()} the lease carries a fencing token larger than every token the
     * lock had before.
     *
     * @return the lease, or {@code null} when the wait ran out with the lock still held elsewhere
     * @throws LockServiceUnavailableException when the store cannot be reached or cannot say; nothing is held then
     * @throws InterruptedException with nothing held
     */
    BackendLease acquire(String name, LockPolicy policy, long deadlineNanos) throws InterruptedException;

    /**
     * How long a lease taken with {@code policy} lasts without a confirmation before it must be
     * taken for lost: the fixed lease, or the renewal's (watchdog's, session's) timeout.
     */
    long leaseMillis(LockPolicy policy);

    /**
     * The longest lock name the store keeps, prefix and namespace included (a database column's
     * width); the engine refuses a longer one before asking, naming this bound. Unbounded by default.
     */
    default int maxNameLength() {
        return Integer.MAX_VALUE;
    }

    /**
     * Makes every later fencing token of the exclusive lock {@code name} larger than {@code floor}.
     *
     * @return the token counter afterwards
     * @throws UnsupportedOperationException where the backend's tokens cannot go back (they need no floor)
     */
    default long raiseFencingFloor(String name, long floor) {
        throw new UnsupportedOperationException(displayName() + " fencing tokens cannot go back; there is no floor to raise");
    }

    /**
     * The locks the store holds now whose names start with {@code namePrefix}, at most {@code limit}
     * of them, read from the store (for the people operating it, never on the lock path). A lock that
     * is free is not listed.
     *
     * @throws UnsupportedOperationException where the backend cannot list its locks
     * @throws LockServiceUnavailableException when the store cannot be reached or does not answer in time
     */
    default List<StoredLock> inspect(String namePrefix, int limit) {
        throw new UnsupportedOperationException("listing its locks is not supported by " + displayName());
    }

    /**
     * Ends every acquisition holding {@code name} now, from outside its holders (a person ending a
     * stuck lock), and wakes its waiters; acquisitions still waiting keep their place. The holders
     * then find their leases lost: {@link BackendLease#isHeld()} and {@link BackendLease#release()}
     * answer {@code false}. Never on the lock path.
     *
     * @param onlyIfFenced end it only if the store shows that every holder took it with a fencing
     *                     token; otherwise end nothing and throw
     * @return the acquisitions ended, as {@link StoredLock#holders()} names them (with the server of
     *         each where the store keeps it); empty when nobody held it
     * @throws IllegalStateException          when {@code onlyIfFenced} and a holder took the lock without
     *                                        a token, or the store cannot tell: nothing was ended
     * @throws UnsupportedOperationException  where the backend cannot end another's lock
     * @throws LockServiceUnavailableException when the store cannot be reached or does not answer in time
     */
    default List<StoredLock.Holder> forceRelease(String name, boolean onlyIfFenced) {
        throw new UnsupportedOperationException("ending a lock from outside its holder is not supported by " + displayName());
    }

    /** Why the store cannot serve locks now, for readiness checks; empty when it can. Never throws, never waits long. */
    default Optional<String> problem() {
        return Optional.empty();
    }

    /**
     * Forgets what the backend's client library keeps on the current thread, called after each
     * locked call on an application's thread: a pooled server thread must not keep the application's
     * classes alive after it is undeployed. Cheap; never throws. Nothing by default.
     */
    default void releaseThreadState() {
    }

    /** Stops what the backend started itself; a client the application gave it stays open. */
    @Override
    default void close() {
    }

    /** The engine's timer, for a backend's own delayed work (sweeps, lease ends). */
    @FunctionalInterface
    interface Later {
        /** Runs {@code task} once after {@code delayNanos}, on the engine's thread; it must be quick. Dropped once the engine is closed. */
        void run(Runnable task, long delayNanos);
    }
}
