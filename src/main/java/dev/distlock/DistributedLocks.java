package dev.distlock;

import dev.distlock.core.Engines;
import dev.distlock.core.KeyEncoding;
import dev.distlock.core.LockBackend;
import dev.distlock.core.LockExecutor;
import dev.distlock.core.RedisBackend;
import dev.distlock.core.LockPolicy;
import dev.distlock.core.RedisClientSource;
import dev.distlock.core.ReturnKind;
import dev.distlock.core.TransactionBridge;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Distributed locks without annotations and without CDI: the same engine and the same semantics
 * as {@link Locked}, {@link ReadLocked} and {@link WriteLocked}.
 *
 * <pre>{@code
 * DistributedLocks locks = DistributedLocks.create(redisson);
 * Order order = locks.exclusive("stock:" + DistributedLocks.encode(sku))
 *                    .waitTime(Duration.ofSeconds(2))
 *                    .get(() -> inventory.reserve(sku, quantity));
 * }</pre>
 *
 * <p>Keys given here are used as written, after the prefix; pass values that come from users
 * through {@link #encode(String)}. Nested calls on the same thread reenter. Thread-safe.
 *
 * <p>{@link #close()} stops the one thread the locks start (it watches held leases); close it
 * before the {@code RedissonClient}, e.g. when the application stops.
 */
public final class DistributedLocks implements AutoCloseable {

    /** The prefix put before every key unless another is configured. */
    public static final String DEFAULT_KEY_PREFIX = "distlock";

    /** How much longer than {@code waitTime} Redis may take to answer, by default. */
    public static final Duration DEFAULT_ANSWER_GRACE = Duration.ofSeconds(5);

    static {
        Engines.install(new Engines.Access() {
            @Override
            public DistributedLocks wrap(LockExecutor executor) {
                return new DistributedLocks(executor);
            }

            @Override
            public LockExecutor unwrap(DistributedLocks locks) {
                return locks.executor;
            }

            @Override
            public Builder transactions(Builder builder, TransactionBridge bridge) {
                builder.transactions = bridge;
                return builder;
            }

            @Override
            public Builder builder(LockBackend backend) {
                return new Builder(null, backend);
            }
        });
    }

    private final LockExecutor executor;

    private DistributedLocks(LockExecutor executor) {
        this.executor = executor;
    }

    /** Locks with the default prefix, no transaction integration. */
    public static DistributedLocks create(RedissonClient redisson) {
        return builder(redisson).build();
    }

    public static Builder builder(RedissonClient redisson) {
        Objects.requireNonNull(redisson, "redisson");
        return new Builder(() -> redisson, null);
    }

    /**
     * For a client that may not exist yet: {@code source} is asked on every acquisition and may
     * throw {@link LockServiceUnavailableException} while Redis is unreachable.
     */
    public static Builder builder(Supplier<RedissonClient> source) {
        Objects.requireNonNull(source, "source");
        return new Builder(source::get, null);
    }

    /** Escapes {@code :}, <code>{</code>, <code>}</code> and {@code %} so a value cannot reach into another key. */
    public static String encode(String value) {
        return KeyEncoding.encode(Objects.requireNonNull(value, "value"));
    }

    /** An exclusive lock on every key, taken in sorted order. */
    public LockCall exclusive(String... keys) {
        return new LockCall(LockMode.EXCLUSIVE, keys);
    }

    /** The read side of a read-write lock on every key: readers share. */
    public LockCall read(String... keys) {
        return new LockCall(LockMode.READ, keys);
    }

    /** The write side of a read-write lock on every key: excludes readers and writers. */
    public LockCall write(String... keys) {
        return new LockCall(LockMode.WRITE, keys);
    }

    /** The Redis key that {@code key} is locked under in {@code mode}; for tools and tests. */
    public String redisKey(String key, boolean readWrite) {
        return executor.redisKey(readWrite ? LockMode.WRITE : LockMode.EXCLUSIVE, key);
    }

    /** What the current thread's locked call holds, e.g. its fencing token. */
    public LockContext context() {
        return executor.context();
    }

    /**
     * After Redis lost its data and its clock cannot be trusted to have moved on: makes every
     * later fencing token of {@code key}'s exclusive lock larger than {@code floor} (the largest
     * token your store has accepted).
     *
     * @return the token counter afterwards
     */
    public long raiseFencingFloor(String key, long floor) {
        return executor.raiseFencingFloor(key, floor);
    }

    /**
     * Stops the thread these locks started. Locks still held are not watched any more and end with
     * their lease; later calls throw {@link LockServiceUnavailableException}. Idempotent.
     */
    @Override
    public void close() {
        executor.close();
    }

    /** One lock request; configure, then run work with {@code call}, {@code get}, {@code run} or {@code stage}. */
    public final class LockCall {
        private final LockMode mode;
        private final List<String> keys;
        private long waitMillis = 5_000;
        private long leaseMillis = LockPolicy.WATCHDOG_LEASE;
        private OnTimeout onTimeout = OnTimeout.FAIL;
        private boolean fenced;

        private LockCall(LockMode mode, String[] keys) {
            if (keys == null || keys.length == 0) {
                throw new IllegalArgumentException("at least one lock key is required");
            }
            for (String key : keys) {
                if (key == null || key.isBlank()) {
                    throw new IllegalArgumentException("lock keys must not be null or blank: " + Arrays.toString(keys));
                }
                if (key.length() > KeyEncoding.MAX_KEY_LENGTH) {
                    throw new IllegalArgumentException("lock key longer than " + KeyEncoding.MAX_KEY_LENGTH + " characters");
                }
            }
            this.mode = mode;
            this.keys = List.of(keys);
        }

        /** How long to wait; {@code Duration.ZERO} tries once. Default 5 s. */
        public LockCall waitTime(Duration wait) {
            Objects.requireNonNull(wait, "wait");
            if (wait.isNegative()) {
                throw new IllegalArgumentException("waitTime must not be negative, was " + wait + "; use waitForever() to wait without bound");
            }
            this.waitMillis = roundUpToMillis(wait);
            return this;
        }

        /** Waits as long as it takes. */
        public LockCall waitForever() {
            this.waitMillis = LockPolicy.WAIT_FOREVER;
            return this;
        }

        /** A fixed lease: the lock expires after it even if the work still runs. Default: watchdog. */
        public LockCall leaseTime(Duration lease) {
            Objects.requireNonNull(lease, "lease");
            if (lease.isNegative() || lease.isZero()) {
                throw new IllegalArgumentException("leaseTime must be positive, was " + lease + "; leave it unset for the watchdog lease");
            }
            this.leaseMillis = roundUpToMillis(lease);
            return this;
        }

        private static long roundUpToMillis(Duration duration) {
            long millis = duration.toMillis();
            return duration.equals(Duration.ofMillis(millis)) ? millis : millis + 1;
        }

        /**
         * Each acquisition gets a fencing token, readable in the work through {@link #context()};
         * exclusive locks only. See {@link Locked#fenced()}.
         */
        public LockCall fenced() {
            if (mode != LockMode.EXCLUSIVE) {
                throw new IllegalStateException("fencing tokens exist for exclusive locks only, not for " + mode);
            }
            this.fenced = true;
            return this;
        }

        /** On timeout, skip the work and return {@code null} (or a stage of {@code null}). */
        public LockCall skipOnTimeout() {
            this.onTimeout = OnTimeout.SKIP;
            return this;
        }

        @SuppressWarnings("unchecked")
        public <T> T call(Callable<T> work) throws Exception {
            return (T) executor.execute(policy(), keys, ReturnKind.VALUE, work);
        }

        public <T> T get(Supplier<T> work) {
            return unchecked(() -> work.get(), ReturnKind.VALUE);
        }

        public void run(Runnable work) {
            unchecked(() -> {
                work.run();
                return null;
            }, ReturnKind.VALUE);
        }

        /** Holds the lock until the returned stage completes, and releases it from whatever thread completes it. */
        public <T> CompletionStage<T> stage(Supplier<? extends CompletionStage<T>> work) {
            return unchecked(work::get, ReturnKind.COMPLETION_STAGE);
        }

        @SuppressWarnings("unchecked")
        private <T> T unchecked(Callable<?> work, ReturnKind kind) {
            try {
                return (T) executor.execute(policy(), keys, kind, work);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Exception impossible) {
                throw new IllegalStateException(impossible);
            }
        }

        private LockPolicy policy() {
            return new LockPolicy(site(), mode, waitMillis, leaseMillis, onTimeout, fenced);
        }

        /** Where the lock comes from, for messages (which name the key too); a constant, not built per call. */
        private String site() {
            return switch (mode) {
                case EXCLUSIVE -> "DistributedLocks.exclusive(...)";
                case READ -> "DistributedLocks.read(...)";
                case WRITE -> "DistributedLocks.write(...)";
            };
        }
    }

    /** Builds {@link DistributedLocks}. */
    public static final class Builder {
        /** Redis's client, or {@code null} when the locks live in {@link #backend}. */
        private final RedisClientSource source;
        private final LockBackend backend;
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private TransactionBridge transactions = TransactionBridge.NONE;
        private Duration answerGrace = DEFAULT_ANSWER_GRACE;
        private LockListener listener = LockListener.NONE;
        private LocalHandoff handoff = LocalHandoff.DEFAULT;
        private boolean verifyBeforeCommit = true;
        private LeaseProof leaseProof = LeaseProof.FENCED;

        private Builder(RedisClientSource source, LockBackend backend) {
            this.source = source;
            this.backend = backend;
        }

        /** Put before every key, followed by {@code :}. Default {@value DistributedLocks#DEFAULT_KEY_PREFIX}. */
        public Builder keyPrefix(String prefix) {
            this.keyPrefix = prefix;
            return this;
        }

        /** How much longer than the wait time Redis may take to answer before the call fails. */
        public Builder answerGrace(Duration grace) {
            this.answerGrace = Objects.requireNonNull(grace, "grace");
            return this;
        }

        /** Told of acquisitions, releases, timeouts and lost locks, e.g. for metrics. */
        public Builder listener(LockListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * How far a held exclusive or write lock may pass between callers in this JVM without
         * Redis; {@link LocalHandoff#DEFAULT} unless set, {@link LocalHandoff#OFF} to never.
         */
        public Builder localHandoff(LocalHandoff handoff) {
            this.handoff = Objects.requireNonNull(handoff, "handoff");
            return this;
        }

        /**
         * Whether, just before a transaction that holds locks commits, Redis is asked if it still
         * holds them, the transaction being marked rollback-only if not. Default {@code true}.
         */
        public Builder verifyBeforeCommit(boolean verify) {
            this.verifyBeforeCommit = verify;
            return this;
        }

        /**
         * Which locks that check may show held from their lease, without a round trip to the store:
         * {@link LeaseProof#FENCED} unless set.
         */
        public Builder leaseProof(LeaseProof proof) {
            this.leaseProof = Objects.requireNonNull(proof, "proof");
            return this;
        }

        public DistributedLocks build() {
            LockBackend store = backend != null ? backend : new RedisBackend(source, answerGrace.toMillis());
            return new DistributedLocks(new LockExecutor(store, keyPrefix, transactions, answerGrace.toMillis(), listener,
                    handoff, verifyBeforeCommit, leaseProof));
        }
    }
}
