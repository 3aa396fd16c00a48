package dev.distlock.bench;

import dev.distlock.internal.id.JdbcSegmentStore;
import dev.distlock.internal.id.SegmentIdGenerator;
import org.h2.jdbcx.JdbcDataSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;

/** distlock's generator over a new H2 in-memory database, leases counted and optionally delayed. */
final class SegmentIdCandidate implements IdCandidate {

    private final JdbcCallCounter sql = new JdbcCallCounter();
    private final JdbcDataSource h2 = new JdbcDataSource();
    private final InstrumentedSegmentStore store;
    private final SegmentIdGenerator generator;
    /** SQL calls of creating the table, not counted. */
    private final long setUpCalls;

    SegmentIdCandidate(Duration leaseDelay) throws Exception {
        h2.setURL("jdbc:h2:mem:bench-ids-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        JdbcSegmentStore jdbc = new JdbcSegmentStore(sql.wrap(h2), JdbcSegmentStore.DEFAULT_TABLE);
        jdbc.createTableIfAbsent();
        setUpCalls = sql.calls();
        store = new InstrumentedSegmentStore(jdbc, leaseDelay);
        generator = new SegmentIdGenerator("bench", store, SegmentIdGenerator.Settings.defaults());
    }

    @Override
    public long nextId() {
        return generator.nextId();
    }

    @Override
    public long storeRoundTrips() {
        return store.leases();
    }

    @Override
    public void awaitStoreIdle() throws InterruptedException {
        store.awaitNoLeaseInFlight(Duration.ofSeconds(10));
    }

    @Override
    public long sqlCalls() {
        return sql.calls() - setUpCalls;
    }

    @Override
    public long rangeSize() {
        return generator.currentStep();
    }

    @Override
    public boolean increasingPerThread() {
        return true;
    }

    @Override
    public long callsThatWaited(long[] untimedIds, long[][] ids, long[][] starts, long[][] ends) {
        long waited = 0;
        for (int t = 0; t < ids.length; t++) {
            InstrumentedSegmentStore.Lease lease = null;
            for (int i = 0; i < ids[t].length; i++) {
                if (lease == null || ids[t][i] > lease.last()) {
                    lease = store.leaseOf(ids[t][i]);
                    if (lease == null) {
                        throw new IllegalStateException("id " + ids[t][i] + " lies in no range the store leased");
                    }
                }
                if (starts[t][i] < lease.returnedAtNanos()) {
                    waited++;
                }
            }
        }
        return waited;
    }

    @Override
    public void close() {
        generator.close();
        try (Connection connection = h2.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("SHUTDOWN");
        } catch (SQLException e) {
            throw new IllegalStateException("could not drop the benchmark's H2 database", e);
        }
    }
}
