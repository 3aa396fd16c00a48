package dev.distlock.jdbc;

import dev.distlock.DistributedLocks;
import dev.distlock.internal.core.EngineBuilder;
import dev.distlock.testing.TestDatabases;
import dev.distlock.testing.TestDatabases.Database;
import dev.distlock.testkit.OverlapDetector;
import dev.distlock.testkit.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What stays in the lock tables after many distinct names were each locked once: with the sweep,
 * the names held now, not every name ever locked. A name's row made again issues a larger fencing
 * token than before, and the sweep, running every second alongside two nodes locking a few names,
 * never lets two of them in at once. H2 always; PostgreSQL and MariaDB when their URLs are set.
 */
class JdbcKeyspaceIT {

    private static final int NAMES = 2_000;
    private static final int HELD = 3;
    private static final long NAME_EXPIRY_MILLIS = 1_000;
    private final String table = TestDatabases.uniqueTable("distlock_keyspace");
    private final List<DistributedLocks> engines = new ArrayList<>();
    private final List<TestDatabases.Pool> pools = new ArrayList<>();
    private DataSource dataSource;

    /** A node with a pool of its own, as a server has: a connection per statement made PostgreSQL's case take a minute. */
    private DistributedLocks node(Database database) {
        dataSource = database.dataSource();
        TestDatabases.Pool pool = TestDatabases.pooled(database.url());
        pools.add(pool);
        DistributedLocks locks = new EngineBuilder().keyPrefix("keyspace")
                .build(new JdbcBackend(pool::dataSource, table, 2_000, 5_000, NAME_EXPIRY_MILLIS));
        engines.add(locks);
        return locks;
    }

    @AfterEach
    void close() throws SQLException {
        engines.forEach(DistributedLocks::close);
        pools.forEach(TestDatabases.Pool::close);
        if (dataSource != null) {
            TestDatabases.dropTable(dataSource, table);
            TestDatabases.dropTable(dataSource, table + "_name");
        }
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void whatStaysIsBoundedByWhatIsHeldNow(Database database) throws Exception {
        database.assumeAvailable();
        DistributedLocks locks = node(database);
        for (int i = 0; i < NAMES; i++) {
            DistributedLocks.LockCall call = locks.exclusive("name:" + i);
            (i % 2 == 0 ? call.fenced() : call).run(() -> { });
        }
        long firstToken = locks.exclusive("name:0").fenced().get(() -> locks.context().fencingToken("name:0").orElseThrow());
        long rightAfter = rows(table + "_name");
        CountDownLatch holding = new CountDownLatch(HELD);
        CountDownLatch done = new CountDownLatch(1);
        List<CompletableFuture<Void>> holders = new ArrayList<>();
        for (int i = 0; i < HELD; i++) {
            String key = "held-" + i;
            holders.add(CompletableFuture.runAsync(() -> locks.exclusive(key).fenced().run(() -> {
                holding.countDown();
                await(done);
            })));
        }
        assertTrue(holding.await(30, TimeUnit.SECONDS), "the held locks were taken");
        boolean shrank = Waits.until(30_000, () -> rows(table + "_name") <= HELD);
        long after = rows(table + "_name");
        long holderRows = rows(table);
        done.countDown();
        CompletableFuture.allOf(holders.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        long again = locks.exclusive("name:0").fenced().get(() -> locks.context().fencingToken("name:0").orElseThrow());
        System.out.printf("[keyspace] the database (%s): %,d names locked once (half fenced): name rows right after %,d, "
                + "after the sweep %d, holder rows %d (held now: %d); name:0's token %d, after its row was swept %d%n",
                database, NAMES, rightAfter, after, holderRows, HELD, firstToken, again);
        assertTrue(shrank, "name rows left " + after + " with " + HELD + " held");
        assertEquals(HELD, holderRows, "holder rows");
        assertTrue(again > firstToken, "a swept name's next token " + again + " is above its last " + firstToken);
    }

    /** The sweep runs every second while two nodes lock three names for 6 s: never two holders at once. */
    @ParameterizedTest
    @EnumSource(Database.class)
    void theSweepNeverLetsTwoHoldersIn(Database database) throws Exception {
        database.assumeAvailable();
        List<DistributedLocks> nodes = List.of(node(database), node(database));
        List<OverlapDetector> overlaps = List.of(new OverlapDetector(), new OverlapDetector(), new OverlapDetector());
        long end = System.nanoTime() + Duration.ofSeconds(6).toNanos();
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            DistributedLocks locks = nodes.get(t % 2);
            int thread = t;
            runs.add(CompletableFuture.runAsync(() -> {
                for (int i = 0; System.nanoTime() < end; i++) {
                    int key = (thread + i) % overlaps.size();
                    DistributedLocks.LockCall call = locks.exclusive("busy:" + key).waitTime(Duration.ofSeconds(30));
                    (i % 2 == 0 ? call.fenced() : call).run(() -> overlaps.get(key).section());
                    // Quiet now and then, so that the sweep finds a name free and old.
                    if (i % 50 == 49) {
                        sleep(1_100);
                    }
                }
            }));
        }
        CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
        long sections = overlaps.stream().mapToLong(OverlapDetector::sections).sum();
        int violations = overlaps.stream().mapToInt(OverlapDetector::violations).sum();
        System.out.printf("[keyspace] the database (%s), sweep under load: %,d sections on 3 names, %d violations%n",
                database, sections, violations);
        assertEquals(0, violations, "two holders at once while the sweep ran");
        assertTrue(sections > 20, "sections run: " + sections);
    }

    private long rows(String name) {
        try (Connection connection = dataSource.getConnection(); Statement count = connection.createStatement();
             ResultSet row = count.executeQuery("SELECT COUNT(*) FROM " + name)) {
            row.next();
            return row.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
