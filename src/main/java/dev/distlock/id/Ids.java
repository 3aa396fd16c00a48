package dev.distlock.id;

import dev.distlock.DistributedLocks;
import dev.distlock.Implementations;
import dev.distlock.spi.id.SnowflakeLayout;
import dev.distlock.spi.id.IdStore;

import javax.sql.DataSource;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Objects;

/**
 * Id generators without CDI, as {@code RedisLocks.create(redisson)} gives locks without it. The same
 * generators {@code @Inject @GeneratedId} gives, with the same guarantees:
 *
 * <pre>{@code
 * IdStore redis = RedisIds.store(redisson);
 * try (Ids.Generator orders = Ids.snowflake("order").leasedWorker(redis).build()) {
 *     long id = orders.nextId();
 * }
 * Ids.Generator invoices = Ids.segment("invoice", dataSource).build();
 * Ids.Serials orderNumbers = Ids.dailySerial("order-number", redis, dataSource).zone(ZoneId.of("Europe/Berlin")).build();
 * }</pre>
 *
 * The {@link IdStore} keeps what nodes share (leased worker ids, clock floors, the day's serials):
 * {@code dev.distlock.redis.RedisIds.store(redisson)} for Redis. Close a generator when done: a leased worker id is given back, a segment or serial generator's
 * thread stops.
 */
public final class Ids {

    /** The table segment and serial ranges are leased from unless another is named. */
    public static final String DEFAULT_TABLE = "distlock_id_segment";
    /** How a daily serial is written unless another format is given: {@code 20261124-000042}. */
    public static final String DEFAULT_SERIAL_FORMAT = "{date:yyyyMMdd}-{serial:6}";

    private Ids() {
    }

    private static IdFactory factory() {
        return Implementations.of(IdFactory.class);
    }

    /** A generator that must be closed when it is no longer used. */
    public interface Generator extends IdGenerator, AutoCloseable {
        @Override
        void close();
    }

    /** Daily serial numbers that must be closed when no longer used. */
    public interface Serials extends DailySerials, AutoCloseable {
        @Override
        void close();
    }

    /** Snowflake ids: time, worker id, sequence; the worker id fixed or leased in an {@link IdStore}. */
    public static SnowflakeBuilder snowflake(String name) {
        return new SnowflakeBuilder(checkName(name));
    }

    /** Segment ids: ranges leased from the table {@value #DEFAULT_TABLE} in {@code dataSource}. */
    public static SegmentBuilder segment(String name, DataSource dataSource) {
        return new SegmentBuilder(checkName(name), Objects.requireNonNull(dataSource, "dataSource"));
    }

    /**
     * Date + the day's serial ({@code 20261124-000042}), counted in {@code redis} (a Redis store:
     * {@code RedisIds.store(redisson)}), with ranges
     * leased from the table {@value #DEFAULT_TABLE} in {@code dataSource} (see
     * {@link DailySerials}).
     */
    public static DailySerialBuilder dailySerial(String name, IdStore redis, DataSource dataSource) {
        return new DailySerialBuilder(checkName(name), Objects.requireNonNull(redis, "redis"),
                Objects.requireNonNull(dataSource, "dataSource"));
    }

    private static String checkName(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("an id generator needs a name, was '" + name + "'");
        }
        return name;
    }

    /** Builds a Snowflake generator. */
    public static final class SnowflakeBuilder {
        private final String name;
        private SnowflakeLayout layout = SnowflakeLayout.DEFAULT;
        private long workerId = -1;
        private IdStore redis;
        private IdStore floor;
        private String keyPrefix = DistributedLocks.DEFAULT_KEY_PREFIX;
        private Duration workerLease = Duration.ofSeconds(30);
        private Duration maxClockBackward = Duration.ofMillis(10);

        private SnowflakeBuilder(String name) {
            this.name = name;
        }

        /** The bit split and epoch; default 41 time, 10 worker, 12 sequence bits from 2020-01-01T00:00:00Z. */
        public SnowflakeBuilder layout(Instant epoch, int timeBits, int workerBits, int sequenceBits) {
            this.layout = new SnowflakeLayout(epoch, timeBits, workerBits, sequenceBits);
            return this;
        }

        /**
         * A worker id of this node's own, from 0 to 2^workerBits - 1; no two live nodes may share one.
         * Without {@link #clockFloor}, a restart with the clock set back can issue its ids again.
         */
        public SnowflakeBuilder workerId(long workerId) {
            this.workerId = workerId;
            this.redis = null;
            return this;
        }

        /**
         * Keeps the fixed worker id's clock floor in {@code redis}, as {@code @GeneratedId} does by default: a
         * restart whose clock is behind the last millisecond the worker id issued ids in waits (up to
         * 3 s) or is refused until the clock passes it.
         */
        public SnowflakeBuilder clockFloor(IdStore redis) {
            this.floor = Objects.requireNonNull(redis, "redis");
            return this;
        }

        /** A worker id leased in {@code redis}, so that two live nodes never share one (see the README). */
        public SnowflakeBuilder leasedWorker(IdStore redis) {
            this.redis = Objects.requireNonNull(redis, "redis");
            this.workerId = -1;
            return this;
        }

        /** The prefix of the worker lease and clock floor keys; default {@value DistributedLocks#DEFAULT_KEY_PREFIX}. */
        public SnowflakeBuilder keyPrefix(String keyPrefix) {
            this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
            return this;
        }

        /** How long a leased worker id lasts unrenewed; renewed every third of it. Default 30 s. */
        public SnowflakeBuilder workerLease(Duration lease) {
            this.workerLease = Objects.requireNonNull(lease, "lease");
            return this;
        }

        /** How far the clock may go back and be waited out; further fails loudly. Default 10 ms. */
        public SnowflakeBuilder maxClockBackward(Duration bound) {
            this.maxClockBackward = Objects.requireNonNull(bound, "bound");
            return this;
        }

        public Generator build() {
            long backward = maxClockBackward.toMillis();
            if (redis != null) {
                return factory().snowflake(name, layout, backward, redis.leasedWorkers(keyPrefix, workerLease.toMillis()));
            } else if (workerId >= 0) {
                if (workerId > layout.maxWorker()) {
                    throw new IllegalArgumentException("Id generator '" + name + "': worker id " + workerId
                            + " does not fit the layout's worker bits (0 to " + layout.maxWorker() + ")");
                }
                return floor == null ? factory().snowflake(name, layout, backward, workerId)
                        : factory().snowflake(name, layout, backward, floor.fixedWorker(keyPrefix, workerId));
            } else {
                throw new IllegalStateException("Id generator '" + name + "': choose workerId(n) or leasedWorker(store)");
            }
        }
    }

    /** Builds a segment generator. */
    public static final class SegmentBuilder {
        private final String name;
        private final DataSource dataSource;
        private String table = DEFAULT_TABLE;
        private long initialStep = 1_000;
        private long minStep = 1_000;
        private long maxStep = 1_000_000;

        private SegmentBuilder(String name, DataSource dataSource) {
            this.name = name;
            this.dataSource = dataSource;
        }

        /** The segment table, created if absent; default {@value #DEFAULT_TABLE}. */
        public SegmentBuilder table(String table) {
            this.table = Objects.requireNonNull(table, "table");
            return this;
        }

        /**
         * How many ids one lease takes: {@code initial} at first, then adapted to the consumption rate
         * between {@code min} and {@code max} (defaults 1,000, 1,000 and 1,000,000).
         */
        public SegmentBuilder steps(long initial, long min, long max) {
            factory().checkSegmentSteps(initial, min, max);
            this.initialStep = initial;
            this.minStep = min;
            this.maxStep = max;
            return this;
        }

        public Generator build() {
            return factory().segment(name, dataSource, table, initialStep, minStep, maxStep);
        }
    }

    /** Builds a daily serial generator. */
    public static final class DailySerialBuilder {
        private final String name;
        private final IdStore redis;
        private final DataSource dataSource;
        private String table = DEFAULT_TABLE;
        private String keyPrefix = DistributedLocks.DEFAULT_KEY_PREFIX;
        private ZoneId zone = java.time.ZoneOffset.UTC;
        private String format = DEFAULT_SERIAL_FORMAT;
        private long step = 100;
        private Duration timeout = Duration.ofSeconds(10);

        private DailySerialBuilder(String name, IdStore redis, DataSource dataSource) {
            this.name = name;
            this.redis = redis;
            this.dataSource = dataSource;
        }

        /** Whose midnight starts a new day; default UTC. */
        public DailySerialBuilder zone(ZoneId zone) {
            factory().checkSerials(zone, this.format, this.step, this.timeout);
            this.zone = zone;
            return this;
        }

        /**
         * How a number is written: literal text, {@code {date:PATTERN}} parts and one
         * {@code {serial:WIDTH}}; default {@value #DEFAULT_SERIAL_FORMAT}.
         *
         * @throws IllegalArgumentException if the format could write two numbers the same
         */
        public DailySerialBuilder format(String format) {
            factory().checkSerials(this.zone, format, this.step, this.timeout);
            this.format = format;
            return this;
        }

        /** How many numbers one database lease takes, at most skipped when Redis loses its data; default 100. */
        public DailySerialBuilder step(long step) {
            factory().checkSerials(this.zone, this.format, step, this.timeout);
            this.step = step;
            return this;
        }

        /** How long {@code next()} waits for Redis or a new range; default 10 s. */
        public DailySerialBuilder timeout(Duration timeout) {
            factory().checkSerials(this.zone, this.format, this.step, timeout);
            this.timeout = timeout;
            return this;
        }

        /** The prefix of the Redis key; default {@value DistributedLocks#DEFAULT_KEY_PREFIX}. */
        public DailySerialBuilder keyPrefix(String keyPrefix) {
            this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
            return this;
        }

        /** The table of the ranges, created if absent; default {@value #DEFAULT_TABLE}. */
        public DailySerialBuilder table(String table) {
            this.table = Objects.requireNonNull(table, "table");
            return this;
        }

        public Serials build() {
            return factory().dailySerial(name, redis, keyPrefix, dataSource, table, zone, format, step, timeout);
        }
    }
}
