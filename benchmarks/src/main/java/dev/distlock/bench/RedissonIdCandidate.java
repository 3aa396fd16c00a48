package dev.distlock.bench;

import org.redisson.api.RIdGenerator;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodes;

import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/** Redisson's generator on a new key; round trips = script requests the Redis server received meanwhile. */
final class RedissonIdCandidate implements IdCandidate {

    private static final int ALLOCATION = 5_000;
    private static final Set<String> SCRIPT_REQUESTS = Set.of(
            "cmdstat_eval", "cmdstat_evalsha", "cmdstat_eval_ro", "cmdstat_evalsha_ro", "cmdstat_script");

    private final RedissonClient redisson;
    private final RIdGenerator generator;
    private final long commandsBefore;

    RedissonIdCandidate(RedissonClient redisson) {
        this.redisson = redisson;
        this.generator = redisson.getIdGenerator("bench-ids-latency-" + UUID.randomUUID());
        generator.tryInit(1, ALLOCATION);
        this.commandsBefore = redisCommands(redisson);
    }

    @Override
    public long nextId() {
        return generator.nextId();
    }

    @Override
    public long storeRoundTrips() {
        return redisCommands(redisson) - commandsBefore;
    }

    @Override
    public void awaitStoreIdle() {
        // Redisson fetches an allocation only while a caller waits for it: none is in flight now.
    }

    @Override
    public long sqlCalls() {
        return -1;
    }

    @Override
    public long rangeSize() {
        return ALLOCATION;
    }

    @Override
    public boolean increasingPerThread() {
        return false;
    }

    @Override
    public long callsThatWaited(long[] untimedIds, long[][] ids, long[][] starts, long[][] ends) {
        // Allocation k holds ids 1 + k * size .. (k + 1) * size; it was there at the latest when the
        // first call served from it returned (a thread waits at most once per allocation).
        long maxId = 0;
        for (long[] threadIds : ids) {
            for (long id : threadIds) {
                maxId = Math.max(maxId, id);
            }
        }
        long[] thereAt = new long[Math.toIntExact((maxId - 1) / ALLOCATION + 1)];
        Arrays.fill(thereAt, Long.MAX_VALUE);
        for (int t = 0; t < ids.length; t++) {
            for (int i = 0; i < ids[t].length; i++) {
                int allocation = (int) ((ids[t][i] - 1) / ALLOCATION);
                thereAt[allocation] = Math.min(thereAt[allocation], ends[t][i]);
            }
        }
        for (long id : untimedIds) {
            // Handed out before the clock started: there before any timed call.
            int allocation = (int) ((id - 1) / ALLOCATION);
            if (allocation < thereAt.length) {
                thereAt[allocation] = Long.MIN_VALUE;
            }
        }
        long waited = 0;
        for (int t = 0; t < ids.length; t++) {
            for (int i = 0; i < ids[t].length; i++) {
                if (starts[t][i] < thereAt[(int) ((ids[t][i] - 1) / ALLOCATION)]) {
                    waited++;
                }
            }
        }
        return waited;
    }

    @Override
    public void close() {
        generator.delete();
    }

    /**
     * Script requests the Redis server has received so far (EVAL, EVALSHA and their read-only
     * forms, SCRIPT), from INFO commandstats: each one a round trip. The commands a script runs
     * inside Redis are counted there too, so they are left out. Server-wide: nothing else may run
     * scripts on the server meanwhile, which holds for the embedded one.
     */
    private static long redisCommands(RedissonClient redisson) {
        Map<String, String> stats = redisson.getRedisNodes(RedisNodes.SINGLE).getInstance()
                .info(RedisNode.InfoSection.COMMANDSTATS);
        long total = 0;
        for (Map.Entry<String, String> command : stats.entrySet()) {
            if (!SCRIPT_REQUESTS.contains(command.getKey())) {
                continue;
            }
            for (String field : command.getValue().split(",")) {
                if (field.startsWith("calls=") || field.startsWith("rejected_calls=")) {
                    total += Long.parseLong(field.substring(field.indexOf('=') + 1));
                }
            }
        }
        return total;
    }
}
