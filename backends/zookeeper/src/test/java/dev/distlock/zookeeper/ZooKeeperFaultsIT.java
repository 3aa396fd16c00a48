package dev.distlock.zookeeper;

import dev.distlock.LockTimeoutException;

import dev.distlock.testing.EngineAccess;

import dev.distlock.DistlockException;
import dev.distlock.DistributedLocks;
import dev.distlock.LockServiceUnavailableException;
import dev.distlock.zookeeper.ZooKeeperBackend;
import dev.distlock.testing.LostLocks;
import dev.distlock.testkit.Waits;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZooKeeper failing under a held lock: the server stopped and restarted, the session expired. A
 * hold whose session ended is reported lost (event and release) and is never confirmed; a short
 * outage inside the session timeout keeps the lock.
 */
@Timeout(180)
class ZooKeeperFaultsIT {

    private static final int SESSION_TIMEOUT_MILLIS = 4_000;

    private TestingServer server;
    private final List<DistributedLocks> engines = new ArrayList<>();
    private final LostLocks lost = new LostLocks();

    @BeforeEach
    void startServer() throws Exception {
        server = new TestingServer(true);
    }

    @AfterEach
    void stop() throws Exception {
        engines.forEach(DistributedLocks::close);
        server.close();
    }

    private CuratorFramework newClient() {
        return CuratorFrameworkFactory.builder().connectString(server.getConnectString())
                .sessionTimeoutMs(SESSION_TIMEOUT_MILLIS).connectionTimeoutMs(2_000)
                .retryPolicy(new RetryOneTime(200)).build();
    }

    private DistributedLocks engine(CuratorFramework client) {
        DistributedLocks locks = DistributedLocks.builder(new ZooKeeperBackend(client, "/faults", true, SESSION_TIMEOUT_MILLIS, 2_000))
                .listener(lost).build();
        engines.add(locks);
        return locks;
    }

    @Test
    void theServerDownLongerThanTheSessionLosesTheHoldAndAnotherSessionGetsItAfterTheRestart() throws Exception {
        DistributedLocks holder = engine(newClient());
        DistributedLocks other = engine(newClient());
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<Void> call = CompletableFuture.runAsync(() -> holder.exclusive("job").run(() -> {
            held.countDown();
            await(finish, 60);
        }));
        assertTrue(held.await(10, TimeUnit.SECONDS));
        String name = EngineAccess.lockName(holder, "job", false);

        server.stop();
        long stoppedAt = System.nanoTime();
        assertTrue(Waits.until(30_000, () -> lost.contains(name)), "the hold was never reported lost");
        long reportedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedAt);
        finish.countDown();
        ExecutionException failure = assertThrows(ExecutionException.class, () -> call.get(30, TimeUnit.SECONDS));
        assertTrue(failure.getCause() instanceof DistlockException, "the release told the caller: " + failure.getCause());

        server.restart();
        long restartedAt = System.nanoTime();
        long got = other.exclusive("job").waitTime(Duration.ofSeconds(30)).get(System::nanoTime);
        System.out.printf("[zookeeper-faults] server down: hold reported lost %d ms after the stop (session %d ms); "
                + "another session got the lock %d ms after the restart%n", reportedAfter, SESSION_TIMEOUT_MILLIS,
                TimeUnit.NANOSECONDS.toMillis(got - restartedAt));
        assertTrue(reportedAfter >= SESSION_TIMEOUT_MILLIS / 2, "reported " + reportedAfter + " ms after the stop, "
                + "before the session could have ended");
    }

    @Test
    void aShortOutageInsideTheSessionTimeoutKeepsTheLock() throws Exception {
        DistributedLocks holder = engine(newClient());
        DistributedLocks other = engine(newClient());
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<Void> call = CompletableFuture.runAsync(() -> holder.exclusive("brief").run(() -> {
            held.countDown();
            await(finish, 60);
        }));
        assertTrue(held.await(10, TimeUnit.SECONDS));
        server.stop();
        Thread.sleep(SESSION_TIMEOUT_MILLIS / 4);
        server.restart();
        Thread.sleep(SESSION_TIMEOUT_MILLIS); // reconnected with the same session; checks confirm again
        assertThrows(dev.distlock.LockTimeoutException.class,
                () -> other.exclusive("brief").waitTime(Duration.ZERO).run(() -> { }), "another session got a held lock");
        finish.countDown();
        call.get(30, TimeUnit.SECONDS);
        assertEquals(List.of(), lost.keys(), "a lock kept through a short outage was reported lost");
        other.exclusive("brief").waitTime(Duration.ofSeconds(10)).run(() -> { });
    }

    @Test
    void anExpiredSessionIsReportedLostFromTheSessionsStateAtOnce() throws Exception {
        CuratorFramework client = newClient();
        DistributedLocks holder = engine(client);
        DistributedLocks other = engine(newClient());
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<Void> call = CompletableFuture.runAsync(() -> holder.exclusive("expiring").run(() -> {
            held.countDown();
            await(finish, 60);
        }));
        assertTrue(held.await(10, TimeUnit.SECONDS));
        String name = EngineAccess.lockName(holder, "expiring", false);

        client.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
        long expiredAt = System.nanoTime();
        assertTrue(Waits.until(20_000, () -> lost.contains(name)), "the expired session's hold was never reported lost");
        long reportedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - expiredAt);
        System.out.printf("[zookeeper-faults] session expired: hold reported lost %d ms after the expiry%n", reportedAfter);
        // From the session's state, not from the server removing the node at the old session's timeout.
        assertTrue(reportedAfter < SESSION_TIMEOUT_MILLIS, "reported " + reportedAfter + " ms after the session expired");
        finish.countDown();
        ExecutionException failure = assertThrows(ExecutionException.class, () -> call.get(30, TimeUnit.SECONDS));
        assertTrue(failure.getCause() instanceof DistlockException, "the release told the caller: " + failure.getCause());
        // The server ends the old session at its timeout: its node goes, and another session gets the lock.
        other.exclusive("expiring").waitTime(Duration.ofSeconds(30)).run(() -> { });
    }

    @Test
    void withTheServerDownACallFailsFastAndDoesNotRun() throws Exception {
        DistributedLocks locks = engine(newClient());
        locks.exclusive("warm").run(() -> { });
        server.stop();
        int[] ran = {0};
        long started = System.nanoTime();
        assertThrows(LockServiceUnavailableException.class, () -> locks.exclusive("down").run(() -> ran[0]++));
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertEquals(0, ran[0], "the method ran without its lock");
        System.out.printf("[zookeeper-faults] server down: a call failed after %d ms%n", tookMillis);
        assertTrue(tookMillis < 15_000, "took " + tookMillis + " ms to fail");
    }

    private static void await(CountDownLatch latch, long seconds) {
        try {
            latch.await(seconds, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

}
