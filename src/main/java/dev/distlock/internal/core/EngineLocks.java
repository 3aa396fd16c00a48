package dev.distlock.internal.core;

import dev.distlock.Batch;
import dev.distlock.Combination;
import dev.distlock.KeyBounds;
import dev.distlock.DistributedLocks;
import dev.distlock.ForcedRelease;
import dev.distlock.LockContext;
import dev.distlock.LockInfo;
import dev.distlock.LockMode;
import dev.distlock.OnTimeout;
import dev.distlock.spi.LockPolicy;

import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * {@link DistributedLocks} over an engine: what {@code DistributedLocks.builder(...).build()} returns
 * and what the CDI layer produces for {@code @Inject DistributedLocks}, over the engine its
 * interceptors use. Each {@link LockCall} collects a request and hands it to the engine as a
 * {@link LockPolicy}.
 */
public final class EngineLocks implements DistributedLocks {

    private final LockExecutor executor;
    /** What serves each combination's batches, made on its first call; weakly, so a dropped combination goes. */
    private final Map<Combination<?>, CombinedCalls.CombinedMethod> combinations = Collections.synchronizedMap(new WeakHashMap<>());

    public EngineLocks(LockExecutor executor) {
        this.executor = Objects.requireNonNull(executor, "executor");
    }

    @Override
    public LockCall exclusive(String... keys) {
        return new Call(LockMode.EXCLUSIVE, keys);
    }

    @Override
    public LockCall read(String... keys) {
        return new Call(LockMode.READ, keys);
    }

    @Override
    public LockCall write(String... keys) {
        return new Call(LockMode.WRITE, keys);
    }

    @Override
    public LockContext context() {
        return executor.context();
    }

    @Override
    public long raiseFencingFloor(String key, long floor) {
        return executor.administration().raiseFencingFloor(key, floor);
    }

    @Override
    public List<LockInfo> inspect(String keyPrefix, int limit) {
        return executor.administration().inspect(keyPrefix, limit);
    }

    @Override
    public List<String> forceRelease(String key, ForcedRelease how) {
        return executor.administration().forceRelease(key, how);
    }

    @Override
    public void close() {
        executor.close();
    }

    /** The engine behind these locks; for distlock's own tests and benchmarks. */
    public LockExecutor executor() {
        return executor;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static CombinedCalls.CombinedMethod served(Combination<?> combination) {
        Combination.BatchWork work = combination.work();
        int max = combination.max();
        return new CombinedCalls.CombinedMethod() {
            @Override
            public int max() {
                return max;
            }

            @Override
            public void serve(Batch<Object> batch) throws Exception {
                work.serve(batch);
            }
        };
    }

    private final class Call implements LockCall {
        private final LockMode mode;
        private final List<String> keys;
        private long waitMillis = 5_000;
        private long leaseMillis = LockPolicy.WATCHDOG_LEASE;
        private OnTimeout onTimeout = OnTimeout.FAIL;
        private boolean fenced;
        private long holdAtLeastMillis;

        private Call(LockMode mode, String[] keys) {
            if (keys == null || keys.length == 0) {
                throw new IllegalArgumentException("at least one lock key is required");
            }
            for (String key : keys) {
                if (key == null || key.isBlank()) {
                    throw new IllegalArgumentException("lock keys must not be null or blank: " + Arrays.toString(keys));
                }
                if (key.length() > KeyBounds.MAX_KEY_LENGTH) {
                    throw new IllegalArgumentException("lock key longer than " + KeyBounds.MAX_KEY_LENGTH + " characters");
                }
            }
            this.mode = mode;
            this.keys = List.of(keys);
        }

        @Override
        public LockCall waitTime(Duration wait) {
            Objects.requireNonNull(wait, "wait");
            if (wait.isNegative()) {
                throw new IllegalArgumentException("waitTime must not be negative, was " + wait + "; use waitForever() to wait without bound");
            }
            this.waitMillis = roundUpToMillis(wait);
            return this;
        }

        @Override
        public LockCall waitForever() {
            this.waitMillis = LockPolicy.WAIT_FOREVER;
            return this;
        }

        @Override
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

        @Override
        public LockCall fenced() {
            if (mode != LockMode.EXCLUSIVE) {
                throw new IllegalStateException("fencing tokens exist for exclusive locks only, not for " + mode);
            }
            this.fenced = true;
            return this;
        }

        @Override
        public LockCall holdAtLeast(Duration hold) {
            Objects.requireNonNull(hold, "hold");
            if (mode != LockMode.EXCLUSIVE) {
                throw new IllegalStateException("a minimum hold exists for exclusive locks only, not for " + mode);
            }
            if (hold.isNegative()) {
                throw new IllegalArgumentException("holdAtLeast must not be negative, was " + hold);
            }
            this.holdAtLeastMillis = roundUpToMillis(hold);
            return this;
        }

        @Override
        public LockCall skipOnTimeout() {
            this.onTimeout = OnTimeout.SKIP;
            return this;
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T call(Callable<T> work) throws Exception {
            return (T) executor.execute(LockRequest.of(policy(), keys, ReturnKind.VALUE, work));
        }

        @Override
        public <T> T get(Supplier<T> work) {
            return unchecked(work::get, ReturnKind.VALUE);
        }

        @Override
        public void run(Runnable work) {
            unchecked(() -> {
                work.run();
                return null;
            }, ReturnKind.VALUE);
        }

        @Override
        public <T> CompletionStage<T> stage(Supplier<? extends CompletionStage<T>> work) {
            return unchecked(work::get, ReturnKind.COMPLETION_STAGE);
        }

        @Override
        @SuppressWarnings("unchecked")
        public <R> R combine(Combination<R> combination, Object... arguments) throws Exception {
            Objects.requireNonNull(combination, "combination");
            if (mode == LockMode.READ) {
                throw new IllegalStateException("combined calls take an exclusive or a write lock, not a read lock: readers share it anyway");
            }
            CombinedCalls.CombinedMethod method = combinations.computeIfAbsent(combination, EngineLocks::served);
            Object[] passed = arguments == null ? new Object[] {null} : arguments;
            return (R) executor.combined().call(policy(), keys, null, method, passed, () -> CombinedCalls.alone(method, passed));
        }

        @SuppressWarnings("unchecked")
        private <T> T unchecked(Callable<?> work, ReturnKind kind) {
            try {
                return (T) executor.execute(LockRequest.of(policy(), keys, kind, work));
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Exception impossible) {
                throw new IllegalStateException(impossible);
            }
        }

        private LockPolicy policy() {
            return new LockPolicy(site(), mode, waitMillis, leaseMillis, onTimeout, fenced, holdAtLeastMillis);
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
}
