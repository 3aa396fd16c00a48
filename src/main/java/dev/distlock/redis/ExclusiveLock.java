package dev.distlock.redis;

import org.redisson.Redisson;
import org.redisson.RedissonFencedLock;
import org.redisson.RedissonLock;
import org.redisson.api.RFuture;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.LongCodec;
import org.redisson.client.protocol.RedisCommands;
import org.redisson.command.CommandAsyncExecutor;
import org.redisson.misc.CompletableFutureWrapper;
import org.redisson.pubsub.LockPubSub;

import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * Redisson's exclusive lock with a release that costs one command instead of two.
 *
 * <p>Redisson's release script also writes an "unlock latch" key, which records the outcome so that
 * a release it sends again (after its replicas failed to acknowledge) answers as the first did; it
 * then deletes that key with a command of its own. distlock never sends a release twice: the script
 * below goes out once, without retries, like Redisson's, and without the wait for replicas (a
 * release a failover loses leaves the lock to expire at the end of its lease, which keeps others
 * out a little longer and never lets two in). So there is no latch to write, read or delete. The
 * script is otherwise Redisson's: the same hash field, the same reentrancy count, the same message
 * on the same channel, so holders and waiters using Redisson's own locks on the same key work with
 * it unchanged. Acquisition, waiting, fencing tokens and the watchdog are Redisson's, untouched.
 *
 * <p>It also answers, in one round trip, whether a holder still holds the lock and for how long its
 * lease has yet to run ({@link LeaseQuery}): what lets the engine know a lease held without asking
 * again until then.
 *
 * <p>Only for clients that are Redisson's own implementation; {@link #of} and {@link #fenced} fall
 * back to the client's own locks for any other.
 */
final class ExclusiveLock extends RedissonLock implements LeaseQuery {

    /**
     * KEYS: the lock, its channel, and for a fenced lock its token counter. ARGV: the unlock message,
     * the lease to keep when still held reentrantly, the holder's field, the publish command, how long
     * the token counter is kept once nobody holds the lock (0: no counter, or kept for ever). Answers
     * nil when not held, 0 when still held, 1 when released. A counter that expires after that quiet
     * time and is made again later is seeded from Redis's clock ({@link FencingTokens}), above every
     * token the old one issued.
     */
    private static final String RELEASE = """
            if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then return nil end
            if redis.call('hincrby', KEYS[1], ARGV[3], -1) > 0 then
                redis.call('pexpire', KEYS[1], ARGV[2])
                return 0
            end
            redis.call('del', KEYS[1])
            if tonumber(ARGV[5]) > 0 then
                redis.call('pexpire', KEYS[3], ARGV[5])
            end
            redis.call(ARGV[4], KEYS[2], ARGV[1])
            return 1""";

    /**
     * KEYS: the lock. ARGV: the holder's field. Answers the lease left in milliseconds while the
     * holder holds the lock (-1 when it has no expiry), {@link LeaseQuery#NOT_HELD} when it does not.
     * Its commands are spelled as a client sends them ({@code HEXISTS}, as the check sent before this
     * script did), so that a server's command log tells them from the watchdog's renewal script,
     * whose {@code hexists} is lower case (RedisRestartedEmptyIT counts renewals that way).
     */
    private static final String HELD_FOR = """
            if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return -3 end
            return redis.call('PTTL', KEYS[1])""";

    private final CommandAsyncExecutor executor;

    private ExclusiveLock(CommandAsyncExecutor executor, String name) {
        super(executor, name);
        this.executor = executor;
    }

    /** The exclusive lock on {@code name}. */
    static RLock of(RedissonClient client, String name) {
        if (client instanceof Redisson redisson) {
            return new ExclusiveLock(redisson.getCommandExecutor(), name);
        }
        return client.getLock(name);
    }

    /**
     * The exclusive lock on {@code name} that issues fencing tokens.
     *
     * @param counterExpiryMillis how long its token counter is kept once the lock is released (0: for ever)
     */
    static RLock fenced(RedissonClient client, String name, long counterExpiryMillis) {
        if (client instanceof Redisson redisson) {
            return new Fenced(redisson.getCommandExecutor(), name, counterExpiryMillis);
        }
        return client.getFencedLock(name);
    }

    /** The command Redisson's unlock messages go out with ({@code PUBLISH}, or {@code SPUBLISH} where sharded). */
    static String publishCommand(RedissonClient client, String name) {
        return client instanceof Redisson redisson
                ? new ExclusiveLock(redisson.getCommandExecutor(), name).getSubscribeService().getPublishCommand()
                : "publish";
    }

    @Override
    public RFuture<Void> unlockAsync(long holderId) {
        return release(executor, getRawName(), internalLockLeaseTime, getLockName(holderId),
                getSubscribeService().getPublishCommand(), 0, answer -> cancelExpirationRenewal(holderId, answer));
    }

    @Override
    public RFuture<Long> heldForAsync(long holderId) {
        return heldFor(executor, getRawName(), getLockName(holderId));
    }

    /** Redisson's fenced lock, released the same way; the release sets its token counter to expire after a quiet time. */
    private static final class Fenced extends RedissonFencedLock implements LeaseQuery {
        private final CommandAsyncExecutor executor;
        private final long counterExpiryMillis;

        private Fenced(CommandAsyncExecutor executor, String name, long counterExpiryMillis) {
            super(executor, name);
            this.executor = executor;
            this.counterExpiryMillis = counterExpiryMillis;
        }

        @Override
        public RFuture<Void> unlockAsync(long holderId) {
            return release(executor, getRawName(), internalLockLeaseTime, getLockName(holderId),
                    getSubscribeService().getPublishCommand(), counterExpiryMillis, answer -> cancelExpirationRenewal(holderId, answer));
        }

        @Override
        public RFuture<Long> heldForAsync(long holderId) {
            return heldFor(executor, getRawName(), getLockName(holderId));
        }
    }

    /** Sent as a write so that it goes to the master, never to a replica that may lag behind it. */
    private static RFuture<Long> heldFor(CommandAsyncExecutor executor, String name, String holderField) {
        return executor.evalWriteAsync(name, LongCodec.INSTANCE, RedisCommands.EVAL_LONG, HELD_FOR, List.of(name), holderField);
    }

    /**
     * Sends the release and stops the watchdog's renewal once Redis answered (or failed), as
     * Redisson's release does; fails with {@link IllegalMonitorStateException} when the holder did
     * not hold the lock.
     *
     * @param counterExpiryMillis for a fenced lock, how long its token counter stays once the lock is free; 0: untouched
     */
    private static RFuture<Void> release(CommandAsyncExecutor executor, String name, long leaseMillis, String holderField,
                                         String publishCommand, long counterExpiryMillis, Consumer<Boolean> stopRenewal) {
        List<Object> keys = counterExpiryMillis > 0
                ? List.of(name, prefixName("redisson_lock__channel", name), FencingTokens.counterName(name))
                : List.of(name, prefixName("redisson_lock__channel", name));
        RFuture<Boolean> released = executor.evalWriteNoRetryAsync(name, LongCodec.INSTANCE, RedisCommands.EVAL_BOOLEAN,
                RELEASE, keys, LockPubSub.UNLOCK_MESSAGE, leaseMillis, holderField, publishCommand, counterExpiryMillis);
        CompletionStage<Void> outcome = released.handle((answer, error) -> {
            stopRenewal.accept(answer);
            if (error != null) {
                throw error instanceof CompletionException known ? known : new CompletionException(error);
            }
            if (answer == null) {
                throw new CompletionException(new IllegalMonitorStateException(
                        "lock '" + name + "' is not held by " + holderField));
            }
            return null;
        });
        return new CompletableFutureWrapper<>(outcome);
    }
}
