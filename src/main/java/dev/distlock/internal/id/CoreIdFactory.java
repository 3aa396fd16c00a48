package dev.distlock.internal.id;

import dev.distlock.id.IdFactory;
import dev.distlock.id.IdGenerator;
import dev.distlock.id.IdStrategy;
import dev.distlock.id.Ids;
import dev.distlock.id.SnowflakeId;
import dev.distlock.spi.id.IdStore;
import dev.distlock.spi.id.SegmentStore;
import dev.distlock.spi.id.SnowflakeLayout;
import dev.distlock.spi.id.WorkerLeases;

import javax.sql.DataSource;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Optional;

/** The id engine behind {@link Ids}, listed in META-INF/services. */
public final class CoreIdFactory implements IdFactory {

    @Override
    public Ids.Generator snowflake(String name, SnowflakeLayout layout, long maxBackwardMillis, WorkerLeases workers) {
        SnowflakeGenerator generator = SnowflakeGenerator.leased(name, layout, Clock.systemUTC(), maxBackwardMillis, workers);
        return new Delegate(generator, generator::close);
    }

    @Override
    public Ids.Generator snowflake(String name, SnowflakeLayout layout, long maxBackwardMillis, long workerId) {
        SnowflakeGenerator generator = SnowflakeGenerator.fixed(name, layout, Clock.systemUTC(), maxBackwardMillis, workerId);
        return new Delegate(generator, generator::close);
    }

    @Override
    public void checkSegmentSteps(long initial, long min, long max) {
        segmentSettings(initial, min, max);
    }

    @Override
    public Ids.Generator segment(String name, DataSource dataSource, String table, long initialStep, long minStep, long maxStep) {
        SegmentIdGenerator generator = new SegmentIdGenerator(name, JdbcSegmentStore.creatingTableOnFirstLease(dataSource, table),
                segmentSettings(initialStep, minStep, maxStep));
        return new Delegate(generator, generator::close);
    }

    private static SegmentIdGenerator.Settings segmentSettings(long initial, long min, long max) {
        SegmentIdGenerator.Settings defaults = SegmentIdGenerator.Settings.defaults();
        return new SegmentIdGenerator.Settings(initial, min, max, defaults.targetPeriod(), defaults.storeTimeout());
    }

    @Override
    public void checkSerials(ZoneId zone, String format, long step, Duration timeout) {
        new DailySerialGenerator.Settings(zone, SerialFormat.parse(format), step, timeout);
    }

    @Override
    public Ids.Serials dailySerial(String name, IdStore store, String keyPrefix, DataSource dataSource, String table,
                                   ZoneId zone, String format, long step, Duration timeout) {
        SegmentStore ranges = JdbcSegmentStore.creatingTableOnFirstLease(dataSource, table);
        return new DailySerialGenerator(name, store.dayCounter(name, keyPrefix), ranges,
                new DailySerialGenerator.Settings(zone, SerialFormat.parse(format), step, timeout));
    }

    /** The engine's generator behind the public type. */
    private record Delegate(IdGenerator generator, Runnable closer) implements Ids.Generator {
        @Override
        public long nextId() {
            return generator.nextId();
        }

        @Override
        public String name() {
            return generator.name();
        }

        @Override
        public IdStrategy strategy() {
            return generator.strategy();
        }

        @Override
        public Optional<SnowflakeId> decode(long id) {
            return generator.decode(id);
        }

        @Override
        public void close() {
            closer.run();
        }
    }
}
