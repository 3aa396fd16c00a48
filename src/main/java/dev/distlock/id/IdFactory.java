package dev.distlock.id;

import dev.distlock.spi.id.IdStore;
import dev.distlock.spi.id.SnowflakeLayout;
import dev.distlock.spi.id.WorkerLeases;

import javax.sql.DataSource;
import java.time.Duration;
import java.time.ZoneId;

/**
 * How {@link Ids} makes its generators: implemented once by distlock's engine, not for applications
 * or stores. Found through {@link dev.distlock.Implementations#of} (listed in
 * {@code META-INF/services/dev.distlock.id.IdFactory}), so that the API names no class of the
 * engine. The checks throw {@link IllegalArgumentException} naming what is wrong, as the builders'
 * setters do.
 */
public interface IdFactory {

    /** Snowflake ids whose worker id comes from {@code workers}: leased, or fixed with a clock floor. */
    Ids.Generator snowflake(String name, SnowflakeLayout layout, long maxBackwardMillis, WorkerLeases workers);

    /** Snowflake ids with a fixed worker id and no clock floor. */
    Ids.Generator snowflake(String name, SnowflakeLayout layout, long maxBackwardMillis, long workerId);

    /** Refuses steps that a segment generator would refuse: {@code 1 <= min <= initial <= max}. */
    void checkSegmentSteps(long initial, long min, long max);

    /** Segment ids from ranges leased in {@code table} (created on the first lease) of {@code dataSource}. */
    Ids.Generator segment(String name, DataSource dataSource, String table, long initialStep, long minStep, long maxStep);

    /** Refuses what a daily serial generator would refuse, e.g. a format that could write two numbers alike. */
    void checkSerials(ZoneId zone, String format, long step, Duration timeout);

    /** Date + the day's serial, counted in {@code store} (Redis), with ranges leased in {@code table} of {@code dataSource}. */
    Ids.Serials dailySerial(String name, IdStore store, String keyPrefix, DataSource dataSource, String table,
                            ZoneId zone, String format, long step, Duration timeout);
}
