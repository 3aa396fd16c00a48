package dev.distlock.redis;

import dev.distlock.spi.id.HeartbeatWorkerSource;
import dev.distlock.spi.id.SnowflakeLayout;
import dev.distlock.spi.id.WorkerLease;
import dev.distlock.spi.id.WorkerLeases;
import dev.distlock.id.IdGenerationException;
import org.redisson.api.RScript;
import org.redisson.client.codec.StringCodec;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * A worker id from configuration whose clock floor is kept in Redis: the last millisecond the worker
 * id may have issued ids in, in the hash leased worker ids use ({@link RedisWorkerLeases#lastKey}).
 * Without it, a node restarted with its clock set back (NTP correcting a clock that ran ahead, a VM
 * restored with an old clock) issues again the ids it issued before.
 *
 * <p>At start the floor is read. A clock past it starts at once; a clock behind it by at most
 * {@link #WINDOW_MILLIS} waits until it passes; a clock further behind is refused, with a message that
 * says so, until it passes. While it runs, a heartbeat records its clock plus {@link #WINDOW_MILLIS}
 * every {@link #RECORD_EVERY_MILLIS}, so that a crash leaves a floor above every id it issued (a
 * restart within the window after a crash waits the rest of it); an orderly close records the last
 * millisecond really issued. The id path never waits for Redis once started: if Redis does not
 * answer later, ids go on and the floor falls behind until it answers again.
 */
final class RedisFixedWorker extends HeartbeatWorkerSource {

    private static final System.Logger LOG = System.getLogger(RedisFixedWorker.class.getName());

    /** How far ahead of this node's clock the recorded floor runs; the longest a restart waits. */
    static final long WINDOW_MILLIS = 3_000;
    static final long RECORD_EVERY_MILLIS = WINDOW_MILLIS / 3;

    /** Returns the floor; records a new one only if this node's clock is past it. */
    private static final String START = """
            local floor = tonumber(redis.call('hget', KEYS[1], ARGV[1]) or '-1')
            if floor < tonumber(ARGV[2]) then redis.call('hset', KEYS[1], ARGV[1], ARGV[3]) end
            return floor
            """;

    /** Only raises: a floor recorded by a node whose clock is ahead is never lowered by this one. */
    private static final String RAISE = """
            local floor = tonumber(redis.call('hget', KEYS[1], ARGV[1]) or '-1')
            if tonumber(ARGV[2]) > floor then redis.call('hset', KEYS[1], ARGV[1], ARGV[2]) end
            return 1
            """;

    /** Down to the last millisecond really issued, unless another node raised the floor since this one recorded it. */
    private static final String CLOSE = """
            local floor = tonumber(redis.call('hget', KEYS[1], ARGV[1]) or '-1')
            if floor == tonumber(ARGV[2]) or tonumber(ARGV[3]) > floor then redis.call('hset', KEYS[1], ARGV[1], ARGV[3]) end
            return 1
            """;

    private final RedisClientSource redis;
    private final long workerId;
    private final String floorKey;
    /** The floor this node recorded last; written under the heartbeat's lock. */
    private volatile long recorded = -1;
    /** The floor that refused this node's clock, so that calls while it is far behind need no round trip. */
    private volatile long refusingFloor = -1;

    private RedisFixedWorker(String generator, SnowflakeLayout layout, Clock clock, LongSupplier lastIssuedMillis,
                             RedisClientSource redis, String keyPrefix, long workerId) {
        super(generator, layout, clock, lastIssuedMillis, "Redis");
        if (workerId < 0 || workerId > layout.maxWorker()) {
            throw new IllegalArgumentException("distlock.id." + generator + ".worker-id=" + workerId
                    + ": must be between 0 and " + layout.maxWorker() + " for " + layout.workerBits() + " worker bits");
        }
        this.redis = redis;
        this.workerId = workerId;
        this.floorKey = RedisWorkerLeases.lastKey(keyPrefix, generator);
        startHeartbeat(RECORD_EVERY_MILLIS);
    }

    /** Worker id {@code workerId} for each generator, with its floor under {@code keyPrefix} in Redis. */
    public static WorkerLeases factory(RedisClientSource redis, String keyPrefix, long workerId) {
        return (generator, layout, clock, lastIssued) -> new RedisFixedWorker(generator, layout, clock, lastIssued, redis, keyPrefix, workerId);
    }

    @Override
    protected void acquire(WorkerLease ended) {
        while (true) {
            long now = elapsedMillis();
            long known = refusingFloor;
            if (known >= 0 && known - now > WINDOW_MILLIS) {
                throw behind(known, now);
            }
            long floor;
            try {
                floor = eval(START, String.valueOf(workerId), String.valueOf(now), String.valueOf(now + WINDOW_MILLIS));
            } catch (RuntimeException e) {
                throw new IdGenerationException("Id generator '" + generator + "' (fixed worker id " + workerId + ") cannot read its "
                        + "clock floor in Redis (field " + workerId + " of " + floorKey + "): " + e + ". Until it has, it issues no"
                        + " ids: one issued without it could repeat an id issued before a restart with the clock set back. Set"
                        + " distlock.id." + generator + ".clock-floor=none to run without it.", e);
            }
            if (floor < now) {
                recorded = now + WINDOW_MILLIS;
                refusingFloor = -1;
                // Unbounded: ids go on while Redis does not answer, so they cannot wait for its record.
                lease = new WorkerLease(generator, workerId, floor, WorkerLease.UNBOUNDED, WorkerLease.FOREVER);
                return;
            }
            if (floor - now > WINDOW_MILLIS) {
                refusingFloor = floor;
                throw behind(floor, now);
            }
            // Behind by no more than a crashed run's window, or a short step back: waited out here, once.
            try {
                Thread.sleep(floor - now + 1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IdGenerationException("Id generator '" + generator + "': interrupted while waiting for the clock to pass"
                        + " the floor of worker id " + workerId, e);
            }
        }
    }

    @Override
    protected void renew(WorkerLease current) {
        // Until the next record this node may issue ids up to its clock plus the window.
        long until = Math.max(lastIssuedMillis.getAsLong(), elapsedMillis() + WINDOW_MILLIS);
        try {
            eval(RAISE, String.valueOf(workerId), String.valueOf(until));
        } catch (RuntimeException e) {
            throw new IdGenerationException("Id generator '" + generator + "' (fixed worker id " + workerId + ") cannot record its"
                    + " clock floor in Redis (field " + workerId + " of " + floorKey + "): " + e + ". Ids go on; the floor falls behind"
                    + " until Redis answers, so a crash meanwhile followed by a clock set back could repeat ids.", e);
        }
        recorded = until;
    }

    @Override
    protected void release(WorkerLease current) {
        // Never below what the previous run may have issued, even if this one issued nothing.
        long last = Math.max(lastIssuedMillis.getAsLong(), current.previousHolderLastMillis);
        try {
            eval(CLOSE, String.valueOf(workerId), String.valueOf(recorded), String.valueOf(last));
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Id generator ''{0}'' could not record the last millisecond of worker id {1}"
                    + " ({2}); the floor stays up to {3} ms ahead, which a restart within that time waits out", generator, workerId, e,
                    WINDOW_MILLIS);
        }
    }

    private long eval(String script, String... arguments) {
        Long answer = redis.client().getScript(StringCodec.INSTANCE).eval(RScript.Mode.READ_WRITE, script, RScript.ReturnType.LONG,
                List.<Object>of(floorKey), (Object[]) arguments);
        return answer == null ? -1 : answer;
    }

    private IdGenerationException behind(long floor, long now) {
        Instant floorAt = layout.epoch().plusMillis(floor);
        return new IdGenerationException("Id generator '" + generator + "' (fixed worker id " + workerId + "): this node's clock is "
                + (floor - now) + " ms behind the last millisecond worker id " + workerId + " may have issued ids in (" + floorAt
                + "), recorded in Redis (field " + workerId + " of " + floorKey + "). The clock was set back since worker id " + workerId
                + " last ran (or another node runs with worker id " + workerId + " and a clock ahead of this one); an id issued now"
                + " could repeat one issued then, so none is issued until this clock passes " + floorAt + ". Correct the clock; delete"
                + " the field only if you are sure that no id of worker id " + workerId + " was issued after this node's time.");
    }
}
