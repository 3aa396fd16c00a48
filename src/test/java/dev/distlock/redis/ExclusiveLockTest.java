package dev.distlock.redis;

import dev.distlock.internal.core.*;
import dev.distlock.testkit.backend.*;
import dev.distlock.testing.EngineAccess;
import dev.distlock.DistributedLocks;
import dev.distlock.testkit.RedisProcess;
import dev.distlock.testkit.RedisProcesses;
import dev.distlock.testkit.TestRedis;
import dev.distlock.testkit.Waits;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.redisson.Redisson;
import org.redisson.RedissonFencedLock;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The exclusive lock's own release script (one command, no unlock latch) against a real Redis:
 * it must keep Redisson's protocol, so waiters using Redisson's locks wake at once, reentrant
 * holds count down as Redisson's do, and the watchdog stops renewing what was released. Taking
 * the message, the holder check or the watchdog's cancellation out of the release makes one of
 * them fail (tried by hand).
 */
@Timeout(60)
class ExclusiveLockTest {

    private static RedissonClient holderClient;
    private static RedissonClient waiterClient;

    private final String prefix = TestRedis.uniquePrefix("exclusive");

    @BeforeAll
    static void connect() {
        holderClient = TestRedis.newClient();
        waiterClient = TestRedis.newClient();
    }

    @AfterAll
    static void disconnect() {
        holderClient.shutdown();
        waiterClient.shutdown();
    }

    /**
     * The holder's lease is the 30 s watchdog timeout and the waiter gives up after 10 s: only the
     * release's message on Redisson's channel can wake the waiter in time.
     */
    @ParameterizedTest(name = "fenced = {0}")
    @ValueSource(booleans = {false, true})
    void releaseWakesAWaiterUsingRedissonsOwnLock(boolean fenced) throws Exception {
        DistributedLocks locks = RedisLocks.builder(holderClient).keyPrefix(prefix).build();
        String redisKey = EngineAccess.lockName(locks, "stock", false);
        RLock waiterLock = fenced ? waiterClient.getFencedLock(redisKey) : waiterClient.getLock(redisKey);
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch waiterAsked = new CountDownLatch(1);
        DistributedLocks.LockCall call = fenced ? locks.exclusive("stock").fenced() : locks.exclusive("stock");
        CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> call.run(() -> {
            holding.countDown();
            await(waiterAsked);
            Waits.sleep(300); // the waiter is subscribed and parked by now
        }), OwnThread.EACH);
        assertTrue(holding.await(10, TimeUnit.SECONDS));
        long ttl = waiterClient.getLock(redisKey).remainTimeToLive();
        assertTrue(ttl > 10_000, "the holder's lease should outlast the waiter's wait, was " + ttl + " ms");

        CompletableFuture<Long> waited = CompletableFuture.supplyAsync(() -> {
            long started = System.nanoTime();
            waiterAsked.countDown();
            try {
                if (!waiterLock.tryLock(10, TimeUnit.SECONDS)) {
                    return -1L;
                }
                waiterLock.unlock();
                return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, OwnThread.EACH);
        holder.get(20, TimeUnit.SECONDS);
        long waitedMillis = waited.get(20, TimeUnit.SECONDS);
        assertTrue(waitedMillis >= 0, "the Redisson waiter was not woken by the release and gave up after 10 s");
        assertTrue(waitedMillis < 5_000, "the Redisson waiter got the lock only after " + waitedMillis + " ms");
        assertFalse(waiterClient.getLock(redisKey).isLocked());
    }

    @Test
    void reentrantHoldsCountDownAsRedissonsDo() {
        RLock lock = ExclusiveLock.of(holderClient, prefix + ":reentrant");
        assertInstanceOf(ExclusiveLock.class, lock);
        lock.lock();
        lock.lock();
        lock.unlock();
        assertTrue(lock.isHeldByCurrentThread(), "one of two holds released the whole lock");
        assertTrue(lock.remainTimeToLive() > 0, "a lock still held must keep its lease");
        lock.unlock();
        assertFalse(lock.isLocked());
        assertThrows(IllegalMonitorStateException.class, lock::unlock, "releasing a lock not held must fail");
    }

    @Test
    void fencedLocksReleaseTheSameWayAndTokensKeepRising() {
        RLock lock = ExclusiveLock.fenced(holderClient, prefix + ":fenced", RedisBackend.DEFAULT_FENCING_COUNTER_EXPIRY.toMillis());
        assertInstanceOf(RedissonFencedLock.class, lock);
        RFencedLock fenced = (RFencedLock) lock;
        long first = fenced.lockAndGetToken();
        lock.unlock();
        assertFalse(lock.isLocked(), "the release left the fenced lock in Redis");
        long second = fenced.lockAndGetToken();
        lock.unlock();
        assertTrue(second > first, "tokens went from " + first + " to " + second);
        assertThrows(IllegalMonitorStateException.class, lock::unlock, "releasing a lock not held must fail");
    }

    @Test
    void anotherHoldersLockIsNotReleased() throws Exception {
        String name = prefix + ":other";
        RLock mine = ExclusiveLock.of(holderClient, name);
        RLock theirs = waiterClient.getLock(name);
        theirs.lock();
        try {
            CompletableFuture<Void> release = CompletableFuture.runAsync(mine::unlock, OwnThread.EACH);
            Exception failure = assertThrows(Exception.class, () -> release.get(10, TimeUnit.SECONDS));
            assertInstanceOf(IllegalMonitorStateException.class, failure.getCause());
            assertTrue(theirs.isHeldByCurrentThread(), "the release took another holder's lock");
        } finally {
            theirs.unlock();
        }
    }

    /**
     * The watchdog renews every third of its timeout while the lock is held, and stops at the
     * release: a server of the test's own counts the scripts sent before and after.
     */
    @Test
    void releaseStopsTheWatchdog() throws Exception {
        try (RedisProcesses redis = new RedisProcesses("exclusive-lock")) {
            RedisProcess node = redis.server();
            Config config = new Config();
            config.setLockWatchdogTimeout(600);
            config.useSingleServer().setAddress(node.url());
            RedissonClient client = Redisson.create(config);
            try {
                DistributedLocks locks = RedisLocks.builder(client).keyPrefix(prefix).build();
                long before = scripts(node);
                locks.exclusive("renewed").run(() -> Waits.sleep(1_000));
                long whileHeld = scripts(node) - before;
                // acquisition, release, and at least two renewals (every 200 ms for 1 s)
                assertTrue(whileHeld >= 4, "expected the watchdog to renew while held; scripts: " + whileHeld);

                long afterRelease = scripts(node);
                Waits.sleep(800);
                assertEquals(0, scripts(node) - afterRelease, "scripts sent after the release (watchdog still renewing?)");
            } finally {
                client.shutdown();
            }
        }
    }

    @Test
    void clientsOtherThanRedissonsOwnGetRedissonsLock() {
        RedissonClient wrapped = (RedissonClient) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {RedissonClient.class}, (proxy, method, args) -> {
                    try {
                        return method.invoke(holderClient, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        RLock lock = ExclusiveLock.of(wrapped, prefix + ":wrapped");
        assertFalse(lock instanceof ExclusiveLock);
        lock.lock();
        lock.unlock();
        assertFalse(lock.isLocked());
    }

    /** EVAL and EVALSHA calls the server has run so far (a client sends either). */
    private static long scripts(RedisProcess node) {
        String stats = node.call("INFO", "commandstats").toString();
        return calls(RedisProcess.infoField(stats, "cmdstat_eval"))
                + calls(RedisProcess.infoField(stats, "cmdstat_evalsha"));
    }

    /** The {@code calls=} count of a commandstats value such as {@code calls=12,usec=80,...}; 0 if never run. */
    private static long calls(String stat) {
        return stat == null ? 0 : Long.parseLong(stat.substring("calls=".length(), stat.indexOf(',')));
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(10, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
