package dev.distlock;

import dev.distlock.spi.LockBackend;
import dev.distlock.spi.NodeName;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Distributed locks without annotations and without CDI: the same engine and the same semantics
 * as {@link Locked}, {@link ReadLocked} and {@link WriteLocked}.
 *
 * <pre>{@code
 * DistributedLocks locks = RedisLocks.create(redisson);       // dev.distlock.redis
 * Order order = locks.exclusive("stock:" + DistributedLocks.encode(sku))
 *                    .waitTime(Duration.ofSeconds(2))
 *                    .get(() -> inventory.reserve(sku, quantity));
 * }</pre>
 *
 * <p>Keys given here are used as written, after the prefix; pass values that come from users
 * through {@link #encode(String)}. Nested calls on the same thread reenter. Thread-safe.
 *
 * <p>{@link #close()} stops the one thread the locks start (it watches held leases); close it
 * before the store's client, e.g. when the application stops. In a CDI application,
 * {@code @Inject DistributedLocks} gives the locks the annotations use; distlock closes those.
 */
public interface DistributedLocks extends AutoCloseable {

    /** The prefix put before every key unless another is configured. */
    String DEFAULT_KEY_PREFIX = "distlock";

    /** How much longer than {@code waitTime} the store may take to answer, by default. */
    Duration DEFAULT_ANSWER_GRACE = Duration.ofSeconds(5);

    /** Locks kept in {@code backend} (see {@link dev.distlock.spi}); the backend is closed with the locks. */
    static Builder builder(LockBackend backend) {
        Objects.requireNonNull(backend, "backend");
        return new Builder(grace -> backend);
    }

    /**
     * Locks kept in a backend made by {@link Builder#build()} for the builder's answer grace (how
     * much longer than the wait time the store may take to answer); the backend is closed with the
     * locks. The entry point of backends, e.g. {@code RedisLocks.builder(redisson)} in distlock,
     * {@code ZooKeeperLocks.builder(curator)} in {@code distlock-zookeeper} and
     * {@code JdbcLocks.builder(dataSource)} in {@code distlock-jdbc}.
     */
    static Builder builder(Function<Duration, ? extends LockBackend> backend) {
        Objects.requireNonNull(backend, "backend");
        return new Builder(backend);
    }

    /** Escapes {@code :}, <code>{</code>, <code>}</code> and {@code %} so a value cannot reach into another key. */
    static String encode(String value) {
        return KeyBounds.encode(Objects.requireNonNull(value, "value"));
    }

    /** An exclusive lock on every key, taken in sorted order. */
    LockCall exclusive(String... keys);

    /** The read side of a read-write lock on every key: readers share. */
    LockCall read(String... keys);

    /** The write side of a read-write lock on every key: excludes readers and writers. */
    LockCall write(String... keys);

    /** What the current thread's locked call holds, e.g. its fencing token. */
    LockContext context();

    /**
     * After the store lost its data and its clock cannot be trusted to have moved on: makes every
     * later fencing token of {@code key}'s exclusive lock larger than {@code floor} (the largest
     * token your store has accepted).
     *
     * @return the token counter afterwards
     * @throws UnsupportedOperationException where the backend's tokens cannot go back
     */
    long raiseFencingFloor(String key, long floor);

    /**
     * The locks whose keys start with {@code keyPrefix} ({@code ""}: all), at most {@code limit}
     * of them in key order: who holds each in this JVM (method, since when, fencing token), how many
     * calls here wait for it, and what the store says (held or free, by which acquisitions, lease
     * left), read from the store now. For the people operating the application: it asks the store
     * for every lock under the prefix, so keep prefixes narrow on a store with many locks. A store that
     * cannot list its locks, or does not answer, gives {@link LockInfo.Stored.State#UNKNOWN} with the
     * reason. Never waits for a lock and never changes one.
     *
     * @param keyPrefix the start of the keys, as the application writes them ({@code stock:})
     * @param limit     how many locks at most, {@code > 0}
     */
    List<LockInfo> inspect(String keyPrefix, int limit);

    /** {@link #inspect(String, int)} with at most 100 locks. */
    default List<LockInfo> inspect(String keyPrefix) {
        return inspect(keyPrefix, 100);
    }

    /**
     * Ends the lock on {@code key} that its holder does not give back (a holder that hangs, a node
     * cut off that still renews): every acquisition holding it now, on any server, is ended in the
     * store and its waiters are woken. The holder finds its lock lost at its next check (a third of
     * the lease; at once in this JVM), before its transaction commits, or at the latest when its work
     * returns: it is told as of any lost lock ({@link LockLostException}, the listener's lost event).
     * Both an exclusive lock and a read-write lock on the key are ended. Logged at {@code WARNING}.
     *
     * @param how {@link ForcedRelease#ifFenced()}, or {@link ForcedRelease#acknowledging(String)} with a reason
     * @return the store's ids of the acquisitions ended (as {@link LockInfo.Stored#holders()}); empty when
     *         nobody held it. The log names the server of each, where the store keeps it
     * @throws IllegalStateException           with {@code ifFenced()}, when the holder took the lock without
     *                                         a fencing token or the store cannot tell: nothing was ended
     * @throws UnsupportedOperationException   where the store cannot end another's lock
     * @throws LockServiceUnavailableException when the store cannot be reached
     */
    List<String> forceRelease(String key, ForcedRelease how);

    /**
     * Stops the thread these locks started. Locks still held are not watched any more and end with
     * their lease; later calls throw {@link LockServiceUnavailableException}. Idempotent.
     */
    @Override
    void close();

    /** One lock request; configure, then run work with {@code call}, {@code get}, {@code run} or {@code stage}. */
    interface LockCall {

        /** How long to wait; {@code Duration.ZERO} tries once. Default 5 s. */
        LockCall waitTime(Duration wait);

        /** Waits as long as it takes. */
        LockCall waitForever();

        /** A fixed lease: the lock expires after it even if the work still runs. Default: renewed while held. */
        LockCall leaseTime(Duration lease);

        /**
         * Each acquisition gets a fencing token, readable in the work through {@link #context()};
         * exclusive locks only. See {@link Locked#fenced()}.
         */
        LockCall fenced();

        /**
         * Keeps the lock taken until at least {@code hold} after it was acquired, even when the work
         * returns sooner; exclusive locks only. With {@code waitTime(Duration.ZERO).skipOnTimeout()}
         * it runs a scheduled tick once per cluster; see {@link Locked#holdAtLeast()}.
         */
        LockCall holdAtLeast(Duration hold);

        /** On timeout, skip the work and return {@code null} (or a stage of {@code null}). */
        LockCall skipOnTimeout();

        <T> T call(Callable<T> work) throws Exception;

        <T> T get(Supplier<T> work);

        void run(Runnable work);

        /** Holds the lock until the returned stage completes, and releases it from whatever thread completes it. */
        <T> CompletionStage<T> stage(Supplier<? extends CompletionStage<T>> work);

        /**
         * A combined call: served together with the calls of the same {@code combination} that
         * wait for the same keys in this JVM, in one batch holding the lock ({@link Combination},
         * {@link Batch}). Made inside a transaction or inside another locked call, it is served
         * alone: {@code combination}'s work runs for a batch of this one call.
         *
         * @return what the batch answered this call; {@code null} when skipped on timeout
         * @throws CombinedCallFailedException when its batch failed
         * @throws Exception                   the failure its batch answered it with, unchanged
         */
        <R> R combine(Combination<R> combination, Object... arguments) throws Exception;
    }

    /** Builds {@link DistributedLocks}. */
    final class Builder {
        /** Makes the backend the locks live in, for the answer grace. */
        private final Function<Duration, ? extends LockBackend> backend;
        private EngineFactory.Settings settings = EngineFactory.Settings.DEFAULTS;

        private Builder(Function<Duration, ? extends LockBackend> backend) {
            this.backend = backend;
        }

        /** Put before every key, followed by {@code :}. Default {@value DistributedLocks#DEFAULT_KEY_PREFIX}. */
        public Builder keyPrefix(String prefix) {
            this.settings = settings.withKeyPrefix(prefix);
            return this;
        }

        /** How much longer than the wait time the store may take to answer before the call fails. */
        public Builder answerGrace(Duration grace) {
            this.settings = settings.withAnswerGrace(Objects.requireNonNull(grace, "grace"));
            return this;
        }

        /** Told of acquisitions, releases, timeouts and lost locks, e.g. for metrics. */
        public Builder listener(LockListener listener) {
            this.settings = settings.withListener(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * How far a held exclusive or write lock may pass between callers in this JVM without
         * the store; {@link LocalHandoff#DEFAULT} unless set, {@link LocalHandoff#OFF} to never.
         */
        public Builder localHandoff(LocalHandoff handoff) {
            this.settings = settings.withLocalHandoff(Objects.requireNonNull(handoff, "handoff"));
            return this;
        }

        /**
         * Whether, just before a transaction that holds locks commits, the store is asked if it still
         * holds them, the transaction being marked rollback-only if not. Default {@code true}.
         */
        public Builder verifyBeforeCommit(boolean verify) {
            this.settings = settings.withVerifyBeforeCommit(verify);
            return this;
        }

        /**
         * Which locks that check may show held from their lease, without a round trip to the store:
         * {@link LeaseProof#FENCED} unless set.
         */
        public Builder leaseProof(LeaseProof proof) {
            this.settings = settings.withLeaseProof(Objects.requireNonNull(proof, "proof"));
            return this;
        }

        /**
         * The name this server goes by in the store, kept beside each of its holders so that
         * {@link #inspect} and forced releases say which server holds a lock: 1 to 64 characters.
         * This host's name unless set; give each of two servers on one host its own.
         *
         * @throws IllegalArgumentException saying what is wrong with {@code name}
         */
        public Builder nodeName(String name) {
            this.settings = settings.withNodeName(NodeName.check(name));
            return this;
        }

        public DistributedLocks build() {
            LockBackend made = Objects.requireNonNull(backend.apply(settings.answerGrace()), "the backend made for the locks");
            return Implementations.of(EngineFactory.class).build(made, settings);
        }
    }
}
