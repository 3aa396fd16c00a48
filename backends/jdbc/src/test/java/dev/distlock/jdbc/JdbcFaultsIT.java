package dev.distlock.jdbc;

import dev.distlock.testing.EngineAccess;

import dev.distlock.DistlockException;
import dev.distlock.DistributedLocks;
import dev.distlock.LockServiceUnavailableException;
import dev.distlock.LockTimeoutException;
import dev.distlock.jdbc.JdbcBackend;
import dev.distlock.testing.LostLocks;
import dev.distlock.testing.SwitchableDataSource;
import dev.distlock.testing.TestDatabases;
import dev.distlock.testkit.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.sql.DataSource;
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
 * The database failing under a held lock: unreachable for longer than the lease (the hold is
 * reported lost and another node gets the lock once the lease has ended in the database's clock),
 * unreachable briefly (the lock is kept), and a holder that stops renewing without releasing (its
 * row ends with its lease).
 */
@Timeout(120)
class JdbcFaultsIT {

    private static final long LEASE_MILLIS = 1_500;

    private final String url = "jdbc:h2:mem:jdbc-faults-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1";
    private final List<DistributedLocks> engines = new ArrayList<>();
    private final LostLocks lost = new LostLocks();

    @AfterEach
    void close() {
        engines.forEach(DistributedLocks::close);
    }

    private DistributedLocks engine(DataSource dataSource) {
        DistributedLocks locks = DistributedLocks.builder(new JdbcBackend(dataSource, "fault_lock", LEASE_MILLIS, 2_000))
                .listener(lost).build();
        engines.add(locks);
        return locks;
    }

    @Test
    void theDatabaseUnreachableLongerThanTheLeaseLosesTheHold() throws Exception {
        SwitchableDataSource database = new SwitchableDataSource(TestDatabases.dataSourceFor(url));
        DistributedLocks holder = engine(database);
        DistributedLocks other = engine(TestDatabases.dataSourceFor(url));
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<Void> call = CompletableFuture.runAsync(() -> holder.exclusive("job").run(() -> {
            held.countDown();
            await(finish);
        }));
        assertTrue(held.await(10, TimeUnit.SECONDS));
        String name = EngineAccess.lockName(holder, "job", false);

        database.down();
        long downAt = System.nanoTime();
        other.exclusive("job").waitTime(Duration.ofSeconds(20)).run(() -> { });
        long otherGotItAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - downAt);
        assertTrue(Waits.until(20_000, () -> lost.contains(name)), "the hold was never reported lost");
        long reportedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - downAt);
        System.out.printf("[jdbc-faults] database unreachable: another node got the lock %d ms after the outage began "
                + "(lease %d ms); the hold was reported lost by %d ms%n", otherGotItAfter, LEASE_MILLIS, reportedAfter);
        finish.countDown();
        ExecutionException failure = assertThrows(ExecutionException.class, () -> call.get(30, TimeUnit.SECONDS));
        assertTrue(failure.getCause() instanceof DistlockException, "the release told the caller: " + failure.getCause());
        assertTrue(otherGotItAfter >= LEASE_MILLIS / 2, "another node got the lock " + otherGotItAfter
                + " ms after the outage began, before the lease could have ended");
        database.up();
    }

    @Test
    void aShortOutageInsideTheLeaseKeepsTheLock() throws Exception {
        SwitchableDataSource database = new SwitchableDataSource(TestDatabases.dataSourceFor(url));
        DistributedLocks holder = engine(database);
        DistributedLocks other = engine(TestDatabases.dataSourceFor(url));
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<Void> call = CompletableFuture.runAsync(() -> holder.exclusive("brief").run(() -> {
            held.countDown();
            await(finish);
        }));
        assertTrue(held.await(10, TimeUnit.SECONDS));
        database.down();
        Thread.sleep(LEASE_MILLIS / 5);
        database.up();
        Thread.sleep(LEASE_MILLIS * 2); // renewals carry on after the outage
        assertThrows(LockTimeoutException.class, () -> other.exclusive("brief").waitTime(Duration.ZERO).run(() -> { }));
        finish.countDown();
        call.get(30, TimeUnit.SECONDS);
        assertEquals(List.of(), lost.keys(), "a lock kept through a short outage was reported lost");
    }

    @Test
    void aHolderThatStopsWithoutReleasingLeavesARowThatEndsWithItsLease() throws Exception {
        DistributedLocks holder = engine(TestDatabases.dataSourceFor(url));
        DistributedLocks other = engine(TestDatabases.dataSourceFor(url));
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<Void> call = CompletableFuture.runAsync(() -> holder.exclusive("orphan").run(() -> {
            held.countDown();
            await(finish);
        }));
        assertTrue(held.await(10, TimeUnit.SECONDS));
        holder.close(); // as a JVM that dies: renewals stop, nothing is released
        long stoppedAt = System.nanoTime();
        other.exclusive("orphan").waitTime(Duration.ofSeconds(20)).run(() -> { });
        long after = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedAt);
        System.out.printf("[jdbc-faults] holder stopped without releasing: another node got the lock %d ms later (lease %d ms)%n",
                after, LEASE_MILLIS);
        assertTrue(after <= LEASE_MILLIS + 2_000, "the orphaned row lasted " + after + " ms");
        finish.countDown();
        assertThrows(ExecutionException.class, () -> call.get(30, TimeUnit.SECONDS));
    }

    @Test
    void withTheDatabaseDownACallFailsAndDoesNotRun() {
        SwitchableDataSource database = new SwitchableDataSource(TestDatabases.dataSourceFor(url));
        DistributedLocks locks = engine(database);
        database.down();
        int[] ran = {0};
        assertThrows(LockServiceUnavailableException.class, () -> locks.exclusive("down").run(() -> ran[0]++));
        assertEquals(0, ran[0], "the method ran without its lock");
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

}
