package dev.distlock.idsoak;

import dev.distlock.id.IdStrategy;
import dev.distlock.testing.TestDatabases;
import dev.distlock.testkit.TestRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The acceptance soak of distributed ids: 4 JVMs x 8 threads x 250,000 ids per strategy, every id
 * written to disk and checked for duplicates across all JVMs. Snowflake takes its worker ids from
 * the test Redis; segments come from an H2 database served over TCP by this JVM.
 */
class IdSoakIT {

    private static final int JVMS = 4;
    private static final int THREADS = 8;
    private static final int IDS_PER_THREAD = 250_000;
    /** JVM start-up on two busy cores included; a healthy run takes seconds. */
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(5);
    private static final long TEST_TIMEOUT_MINUTES = 7;

    @Test
    @Timeout(value = TEST_TIMEOUT_MINUTES, unit = TimeUnit.MINUTES)
    void snowflakeWithLeasedWorkerIdsNeverRepeatsAcrossJvms() throws Exception {
        String prefix = TestRedis.uniquePrefix("idsoak");
        try {
            IdSoakRun.Outcome outcome = new IdSoakRun(IdStrategy.SNOWFLAKE, TestRedis.url(), "soak", prefix,
                    JVMS, THREADS, IDS_PER_THREAD, RUN_TIMEOUT).run();
            assertSoak(outcome);
        } finally {
            RedissonClient redis = TestRedis.newClient();
            try {
                redis.getKeys().deleteByPattern(prefix + ":*");
            } finally {
                redis.shutdown();
            }
        }
    }

    @Test
    @Timeout(value = TEST_TIMEOUT_MINUTES, unit = TimeUnit.MINUTES)
    void segmentsFromOneDatabaseNeverRepeatAcrossJvms() throws Exception {
        try (TestDatabases.H2Server h2 = TestDatabases.startH2TcpServer()) {
            String url = h2.url("idsoak-" + UUID.randomUUID().toString().substring(0, 8));
            IdSoakRun.Outcome outcome = new IdSoakRun(IdStrategy.SEGMENT, url, "soak", "distlock_id_segment",
                    JVMS, THREADS, IDS_PER_THREAD, RUN_TIMEOUT).run();
            assertSoak(outcome);
        }
    }

    private static void assertSoak(IdSoakRun.Outcome outcome) {
        System.out.println(outcome.summary());
        assertAll(
                () -> assertTrue(outcome.allExitedCleanly(), () -> "every JVM exits 0 and reports\n" + outcome.outputs()),
                () -> assertEquals(outcome.plannedIds(), outcome.ids(), () -> "ids written\n" + outcome.summary()),
                () -> assertEquals(0, outcome.errors(), () -> "failed nextId calls\n" + outcome.outputs()),
                () -> assertEquals(0, outcome.nonIncreasing(), () -> "ids not above the thread's previous one\n" + outcome.summary()),
                () -> assertEquals(0, outcome.duplicates(), () -> "duplicate ids across all JVMs\n" + outcome.summary()));
    }
}
