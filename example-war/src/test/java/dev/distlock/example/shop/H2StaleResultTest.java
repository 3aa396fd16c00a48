package dev.distlock.example.shop;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Why the shop's H2 URLs carry {@link ShopApplication#H2_SETTINGS}: H2 2.2.224 (the version
 * Payara Micro 6.2025.10 ships and the shop uses) can answer a query with data older than a commit
 * that had returned before the query was sent.
 *
 * <p>H2 reuses a prepared query's last result while no table it reads has been modified since
 * ({@code OPTIMIZE_REUSE_RESULTS}, on by default). A commit marks its tables modified first and
 * makes its rows visible after: a query run by another session in between reads the old rows and
 * caches them as current. That session then answers the same query from the cache, after the
 * commit, until the table is written again. In the shop this was a buyer reading the stock as it
 * was before the previous buyer's order (its fenced write then refused: a 503); readers of the
 * inventory run the same query as a buyer, so they fill the cache. No lock, distributed or not,
 * can help: the commit was done and visible when the lock was released.
 *
 * <p>Here one writer commits a new value again and again; after each commit returns, readers,
 * each on its own session running the same prepared query over and over, must see at least that
 * value. With result reuse on they do not, many times; with the shop's settings, never.
 */
class H2StaleResultTest {

    private static final int ROUNDS = 2_000;
    private static final int READERS = 4;
    private static final AtomicInteger DATABASES = new AtomicInteger();

    @Test
    void theShopsSettingsNeverAnswerWithDataOlderThanACompletedCommit() throws Exception {
        Outcome outcome = race(ShopApplication.H2_SETTINGS);
        System.out.println("[h2] shop settings: " + outcome);
        assertEquals(0, outcome.staleRounds, outcome::toString);
        assertTrue(outcome.checks >= (long) ROUNDS * READERS, outcome::toString);
    }

    /** The twin: without the setting, H2 2.2.224 answers with data from before the commit. */
    @Test
    void withResultReuseH2AnswersWithDataOlderThanACompletedCommit() throws Exception {
        Outcome outcome = race(";DB_CLOSE_DELAY=-1");
        System.out.println("[h2] result reuse on: " + outcome);
        assertTrue(outcome.staleRounds > 0, () -> "expected stale answers from H2 " + org.h2.engine.Constants.VERSION
                + " with result reuse on (if this H2 no longer has the race, H2_SETTINGS may drop the setting): " + outcome);
    }

    private record Outcome(int rounds, long checks, int staleRounds) {
    }

    private static Outcome race(String settings) throws Exception {
        String url = "jdbc:h2:mem:stale" + DATABASES.incrementAndGet() + settings;
        try (Connection setup = DriverManager.getConnection(url, "sa", "");
             Statement statement = setup.createStatement()) {
            statement.execute("CREATE TABLE stock(sku VARCHAR(20) PRIMARY KEY, fence BIGINT NOT NULL)");
            statement.execute("INSERT INTO stock VALUES ('MUG', 0)");

            AtomicLong committed = new AtomicLong();
            AtomicLong checks = new AtomicLong();
            AtomicLong staleRound = new AtomicLong(-1);
            AtomicInteger staleRounds = new AtomicInteger();
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> readers = new ArrayList<>();
            for (int i = 0; i < READERS; i++) {
                Thread reader = new Thread(() -> {
                    try (Connection connection = DriverManager.getConnection(url, "sa", "");
                         PreparedStatement query = connection.prepareStatement("SELECT fence FROM stock WHERE sku = ?")) {
                        query.setString(1, "MUG");
                        while (running.get()) {
                            long floor = committed.get();
                            try (ResultSet row = query.executeQuery()) {
                                row.next();
                                if (row.getLong(1) < floor && staleRound.getAndSet(floor) != floor) {
                                    staleRounds.incrementAndGet();
                                }
                            }
                            checks.incrementAndGet();
                        }
                    } catch (SQLException | RuntimeException e) {
                        failure.compareAndSet(null, e);
                    }
                }, "h2-reader-" + i);
                reader.start();
                readers.add(reader);
            }
            try (Connection connection = DriverManager.getConnection(url, "sa", "");
                 PreparedStatement update = connection.prepareStatement("UPDATE stock SET fence = ? WHERE sku = 'MUG'")) {
                connection.setAutoCommit(false);
                for (long fence = 1; fence <= ROUNDS && failure.get() == null; fence++) {
                    update.setLong(1, fence);
                    update.executeUpdate();
                    connection.commit();
                    committed.set(fence);
                    awaitChecks(checks, checks.get() + 2L * READERS, failure);
                }
            } finally {
                running.set(false);
                for (Thread reader : readers) {
                    reader.join(TimeUnit.SECONDS.toMillis(10));
                }
            }
            if (failure.get() != null) {
                throw new AssertionError("a reader failed", failure.get());
            }
            return new Outcome(ROUNDS, checks.get(), staleRounds.get());
        }
    }

    /** Lets the readers query after the commit before the next write changes the table again. */
    private static void awaitChecks(AtomicLong checks, long target, AtomicReference<Throwable> failure) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (checks.get() < target && failure.get() == null) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("the readers stopped querying");
            }
            Thread.onSpinWait();
        }
    }
}
