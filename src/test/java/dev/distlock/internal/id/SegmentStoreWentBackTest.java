package dev.distlock.internal.id;

import dev.distlock.id.IdGenerationException;
import dev.distlock.testing.IdRuns;
import dev.distlock.testing.TestDatabases.Database;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A segment store that goes back, as a database does when it fails over to a replica that missed
 * the last committed leases: the row's high-water mark is really set back with SQL between two
 * refills, and the next lease hands out ids the generator already had. It must refuse them loudly,
 * never issue one twice, and go on once the store hands out a range above them.
 */
@Timeout(60)
class SegmentStoreWentBackTest {

    /** Fixed ranges of 50: 1..50, 51..100, ...; the next one is leased at the fifth id of each. */
    private static final SegmentIdGenerator.Settings RANGES_OF_50 =
            new SegmentIdGenerator.Settings(50, 50, 50, Duration.ofMinutes(1), Duration.ofSeconds(30));
    private static final String NAME = "went-back";

    private final Tables tables = new Tables();

    @AfterEach
    void dropTables() throws Exception {
        tables.dropAll();
    }

    @Test
    void aRangeBelowWhatWasIssuedIsRefusedAndNoIdIsIssuedTwice() throws Exception {
        DataSource dataSource = Database.H2.dataSource();
        String table = tables.newSegmentTable(dataSource);
        List<Long> issued = new ArrayList<>();
        List<IdGenerationException> refusals = new ArrayList<>();
        try (SegmentIdGenerator generator = new SegmentIdGenerator(NAME, new JdbcSegmentStore(dataSource, table), RANGES_OF_50)) {
            // 1..120 issued from three ranges (1..50, 51..100, 101..150); 151..200 is leased in the background at id 105.
            for (int i = 0; i < 120; i++) {
                issued.add(generator.nextId());
            }
            awaitMaxId(dataSource, table, 200);

            // The failover: the database lost the leases of 51..200, committed before it.
            setMaxId(dataSource, table, 50);

            for (int i = 0; i < 200; i++) {
                try {
                    issued.add(generator.nextId());
                } catch (IdGenerationException refused) {
                    refusals.add(refused);
                }
            }

            assertEquals(Set.of(), issuedTwice(issued), "ids issued twice after the store went back");
            IdRuns.assertStrictlyIncreasing(issued.stream().mapToLong(Long::longValue).toArray());
            assertFalse(refusals.isEmpty(), "a caller that needed a range while the store handed out only old ones was refused");
            // The last range refused is always 151..200 (whether a caller or the background lease met 51..100 first).
            String message = refusals.get(refusals.size() - 1).getMessage();
            for (String part : List.of("'" + NAME + "'", "151..200", "up to 200", "went back", table)) {
                assertTrue(message.contains(part), "the refusal names " + part + ": " + message);
            }
            // 51..100 (leased in the background at id 155), 101..150 and 151..200; 201..250 is good.
            assertEquals(3, generator.rangesRefused(), "ranges refused");
            assertTrue(generator.refusal().isEmpty(), "a good range ends the refusal: " + generator.refusal());
            assertEquals(201, (long) issued.get(200), "the first id after the refusals is above every earlier one");
        }
    }

    private static Set<Long> issuedTwice(List<Long> ids) {
        Set<Long> seen = new HashSet<>();
        Set<Long> twice = new TreeSet<>();
        for (long id : ids) {
            if (!seen.add(id)) {
                twice.add(id);
            }
        }
        return twice;
    }

    private static void awaitMaxId(DataSource dataSource, String table, long expected) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (Tables.maxId(dataSource, table, NAME) != expected) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("the background lease did not commit max_id " + expected + ", the row has "
                        + Tables.maxId(dataSource, table, NAME));
            }
            Thread.sleep(5);
        }
    }

    private static void setMaxId(DataSource dataSource, String table, long maxId) throws SQLException {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement update = connection.prepareStatement("UPDATE " + table + " SET max_id = ? WHERE name = ?")) {
            update.setLong(1, maxId);
            update.setString(2, NAME);
            assertEquals(1, update.executeUpdate());
        }
    }
}
