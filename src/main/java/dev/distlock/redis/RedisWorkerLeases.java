package dev.distlock.redis;

import dev.distlock.spi.id.HeartbeatWorkerSource;
import dev.distlock.spi.id.SnowflakeLayout;
import dev.distlock.spi.id.WorkerLease;
import dev.distlock.spi.id.WorkerLeases;

import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import java.time.Clock;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Worker ids leased in Redis, so that two live JVMs never issue Snowflake ids under the same one.
 *
 * <p>A lease is a key {@code <prefix>:id:{<name>}:worker:<n>} holding this node's token, with a TTL;
 * a heartbeat renews it every third of the TTL. The node stops issuing a safety margin before
 * the TTL could run out in Redis, so by the time another node can take the worker id, this one has
 * stopped. For each worker id, {@code <prefix>:id:{<name>}:last} holds the last millisecond its
 * holder may have issued ids in: while leased, the holder's clock plus the TTL at each acquisition
 * and renewal (the lease can run no longer, even if the holder is cut off and never renews); once
 * given back, the last millisecond actually issued. A node whose clock is not past it will not take
 * that worker id, so a successor with a clock behind cannot repeat a cut-off or crashed holder's ids.
 * The holder issues no id past what Redis has recorded: after its clock steps forward by more than
 * the record runs ahead, it records a later one first ({@link #recordUpTo}).
 */
public final class RedisWorkerLeases extends HeartbeatWorkerSource {

    private static final System.Logger LOG = System.getLogger(RedisWorkerLeases.class.getName());

    /** Tries every worker id from a random start; returns the id taken and the previous holder's last millisecond. */
    private static final String ACQUIRE = """
            local count = tonumber(ARGV[4])
            local start = tonumber(ARGV[3])
            local now = tonumber(ARGV[5])
            for i = 0, count - 1 do
              local worker = (start + i) % count
              local key = KEYS[1] .. worker
              if redis.call('exists', key) == 0 then
                local last = tonumber(redis.call('hget', KEYS[2], tostring(worker)) or '-1')
                if last < now then
                  redis.call('set', key, ARGV[1], 'PX', ARGV[2])
                  redis.call('hset', KEYS[2], tostring(worker), ARGV[6])
                  return {worker, last}
                end
              end
            end
            return {-1, -1}
            """;

    private static final String RENEW = """
            if redis.call('get', KEYS[1]) == ARGV[1] then
              redis.call('pexpire', KEYS[1], ARGV[2])
              local last = tonumber(redis.call('hget', KEYS[2], ARGV[3]) or '-1')
              if tonumber(ARGV[4]) > last then redis.call('hset', KEYS[2], ARGV[3], ARGV[4]) end
              return 1
            end
            return 0
            """;

    /** The holder lowers the bound to what it really issued; a node that lost the lease only raises it. */
    private static final String RELEASE = """
            if redis.call('get', KEYS[1]) == ARGV[1] then
              redis.call('hset', KEYS[2], ARGV[2], ARGV[3])
              return redis.call('del', KEYS[1])
            end
            local last = tonumber(redis.call('hget', KEYS[2], ARGV[2]) or '-1')
            if tonumber(ARGV[3]) > last then redis.call('hset', KEYS[2], ARGV[2], ARGV[3]) end
            return 0
            """;

    private final RedisClientSource redis;
    private final long ttlMillis;
    private final long safetyMillis;
    private final String workerKeyPrefix;
    private final String lastKey;
    private final String token = UUID.randomUUID().toString();

    private RedisWorkerLeases(String generator, RedisClientSource redis, String keyPrefix, SnowflakeLayout layout,
                              Clock clock, LongSupplier lastIssuedMillis, long ttlMillis) {
        super(generator, layout, clock, lastIssuedMillis, "Redis");
        if (ttlMillis < 300) {
            throw new IllegalArgumentException("distlock.id." + generator + ".worker-lease must be at least 300 ms, was " + ttlMillis);
        }
        this.redis = redis;
        this.ttlMillis = ttlMillis;
        // Redis counts the TTL from when it runs the renewal, which is after we sent it; stop a
        // tenth earlier still, for timer jitter and clock rate differences.
        this.safetyMillis = Math.max(50, ttlMillis / 10);
        this.workerKeyPrefix = keyPrefix + ":id:{" + generator + "}:worker:";
        this.lastKey = lastKey(keyPrefix, generator);
        startHeartbeat(ttlMillis / 3);
    }

    /**
     * The hash of each worker id's last millisecond: what leased worker ids check, and where a fixed
     * worker id keeps its clock floor ({@link RedisFixedWorker}).
     */
    static String lastKey(String keyPrefix, String generator) {
        return keyPrefix + ":id:{" + generator + "}:last";
    }

    public static WorkerLeases factory(RedisClientSource redis, String keyPrefix, long ttlMillis) {
        return (generator, layout, clock, lastIssued) -> new RedisWorkerLeases(generator, redis, keyPrefix, layout, clock, lastIssued, ttlMillis);
    }

    @Override
    protected void acquire(WorkerLease ended) {
        long started = System.nanoTime();
        int count = (int) (layout.maxWorker() + 1);
        long now = elapsedMillis();
        List<Object> result = script().eval(RScript.Mode.READ_WRITE, ACQUIRE, RScript.ReturnType.LIST,
                List.<Object>of(workerKeyPrefix, lastKey), token, String.valueOf(ttlMillis),
                String.valueOf(ThreadLocalRandom.current().nextInt(count)), String.valueOf(count), String.valueOf(now),
                String.valueOf(now + ttlMillis));
        long worker = ((Number) result.get(0)).longValue();
        if (worker < 0) {
            throw allTaken(count);
        }
        long previousLast = ((Number) result.get(1)).longValue();
        lease = new WorkerLease(generator, worker, previousLast, now + ttlMillis, validUntil(started));
        LOG.log(System.Logger.Level.INFO, "Id generator ''{0}'' leased worker id {1}", generator, worker);
    }

    @Override
    protected void renew(WorkerLease current) {
        long started = System.nanoTime();
        // Until the next renewal this node may issue ids up to its clock plus the TTL, never later.
        long mayIssueUntil = Math.max(lastIssuedMillis.getAsLong(), elapsedMillis() + ttlMillis);
        Long renewed = script().eval(RScript.Mode.READ_WRITE, RENEW, RScript.ReturnType.LONG,
                List.<Object>of(workerKeyPrefix + current.workerId, lastKey), token, String.valueOf(ttlMillis),
                String.valueOf(current.workerId), String.valueOf(mayIssueUntil));
        if (renewed != null && renewed == 1L) {
            current.extendTo(validUntil(started));
            current.recorded(mayIssueUntil);
        } else {
            current.end();
            LOG.log(System.Logger.Level.WARNING, "Id generator ''{0}'' lost worker id {1}; taking another",
                    generator, current.workerId);
            acquire(current);
        }
    }

    private long validUntil(long requestSentNanos) {
        return requestSentNanos + TimeUnit.MILLISECONDS.toNanos(ttlMillis - safetyMillis);
    }

    private RScript script() {
        RedissonClient client = redis.client();
        return client.getScript(StringCodec.INSTANCE);
    }

    @Override
    protected void release(WorkerLease current) {
        // Never below what the previous holder may have issued, even if this node issued nothing.
        long lastIssued = Math.max(lastIssuedMillis.getAsLong(), current.previousHolderLastMillis);
        try {
            script().eval(RScript.Mode.READ_WRITE, RELEASE, RScript.ReturnType.LONG,
                    List.<Object>of(workerKeyPrefix + current.workerId, lastKey), token,
                    String.valueOf(current.workerId), String.valueOf(lastIssued));
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "Id generator ''{0}'' could not return worker id {1}; it frees itself in {2} ms",
                    generator, current.workerId, ttlMillis);
        }
    }
}
