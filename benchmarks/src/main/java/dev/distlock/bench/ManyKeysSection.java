package dev.distlock.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The many-keys part of {@link BenchMain}: runs {@link ManyKeysDriver}'s two parts and appends their tables. */
final class ManyKeysSection {

    private ManyKeysSection() {
    }

    /**
     * {@link ManyKeysDriver}, raw Redisson then distlock for each part. Properties (ignored with
     * {@code bench.quick}, which uses tiny sizes): {@code bench.keys.own.threads} (8),
     * {@code bench.keys.own.seconds} (5), {@code bench.keys.count} (2000), {@code bench.keys.callers} (2),
     * {@code bench.keys.pool} (64), {@code bench.keys.hold.micros} (1000).
     *
     * @throws IllegalStateException after appending the tables, if a call failed, two callers held a
     *                               key at once, or a lock key, a pub/sub channel or a local queue was left
     */
    static void append(StringBuilder md, String url, boolean quick) throws Exception {
        int ownThreads = quick ? 8 : Integer.getInteger("bench.keys.own.threads", 8);
        long ownMillis = quick ? 300 : Long.getLong("bench.keys.own.seconds", 5) * 1000;
        long ownWarmupMillis = quick ? 0 : 1000;
        int keys = quick ? 100 : Integer.getInteger("bench.keys.count", 2000);
        int callers = quick ? 2 : Integer.getInteger("bench.keys.callers", 2);
        int pool = quick ? 16 : Integer.getInteger("bench.keys.pool", 64);
        long holdMicros = quick ? 1000 : Long.getLong("bench.keys.hold.micros", 1000);
        int warmupKeys = quick ? 0 : Math.min(keys, 500);
        Duration wait = Duration.ofSeconds(30);
        long settleMillis = quick ? 2000 : 5000;

        List<String> problems = new ArrayList<>();
        int start = md.length();
        try (ManyKeysDriver driver = new ManyKeysDriver(url, Math.max(64, Math.max(ownThreads, pool) + 8), settleMillis)) {
            ManyKeysDriver.OwnKeysRow ownRaw = driver.ownKeys("raw", ownThreads, ownWarmupMillis, ownMillis);
            System.out.println("many keys, own key per thread: " + ownRaw);
            ManyKeysDriver.OwnKeysRow ownDistlock = driver.ownKeys("distlock", ownThreads, ownWarmupMillis, ownMillis);
            System.out.println("many keys, own key per thread: " + ownDistlock);
            md.append("### Many keys (a): a key of its own per thread (").append(ownThreads).append(" threads, one JVM, ")
                    .append(ownMillis / 1000.0).append(" s each)\n\n");
            md.append("Each thread locks and unlocks one key of its own (the same key every time), empty critical ")
                    .append("section, watchdog lease; raw `lock()` / distlock `exclusive(key).run(...)`, one Redisson client. ")
                    .append("Left = after the run and up to ").append(settleMillis).append(" ms of settling.\n\n");
            md.append("| impl | threads | ops/s | failures | lock keys left | channels left | local queues left | distlock/raw |\n");
            md.append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
            ownRow(md, ownRaw, "");
            ownRow(md, ownDistlock, String.format("%.2f", ownDistlock.throughput() / ownRaw.throughput()));
            md.append('\n');
            problems.addAll(ownRaw.problems());
            problems.addAll(ownDistlock.problems());

            ManyKeysDriver.ContendedRow hotRaw = driver.contended("raw", keys, callers, pool, holdMicros, wait, warmupKeys);
            System.out.println("many keys, contended: " + hotRaw);
            ManyKeysDriver.ContendedRow hotDistlock = driver.contended("distlock", keys, callers, pool, holdMicros, wait, warmupKeys);
            System.out.println("many keys, contended: " + hotDistlock);
            md.append("### Many keys (b): ").append(String.format("%,d", keys)).append(" keys × ").append(callers)
                    .append(" callers at once (pool of ").append(pool).append(" threads, lock held ")
                    .append(holdMicros / 1000.0).append(" ms)\n\n");
            md.append("All ").append(String.format("%,d", keys * callers)).append(" calls submitted together; the callers ")
                    .append("of a key meet, then ask for its lock (raw `tryLock(30 s)` / distlock `exclusive(key).waitTime(30 s)`, ")
                    .append("watchdog lease)").append(warmupKeys > 0 ? ", after an uncounted round on " + warmupKeys + " other keys" : "")
                    .append(". Violations: two holders of a key at once (in-memory check). Left = lock keys in Redis, ")
                    .append("pub/sub channels with a subscriber, distlock local queues, after up to ").append(settleMillis)
                    .append(" ms of settling.\n\n");
            md.append("| impl | total s | locks/s | failures | violations | lock keys left | channels left | local queues left | distlock/raw |\n");
            md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            contendedRow(md, hotRaw, "");
            contendedRow(md, hotDistlock, String.format("%.2f", hotDistlock.throughput() / hotRaw.throughput()));
            md.append('\n');
            problems.addAll(hotRaw.problems());
            problems.addAll(hotDistlock.problems());
        }
        if (!problems.isEmpty()) {
            System.out.println(md.substring(start));
            throw new IllegalStateException("many-keys invariants broken: " + String.join("; ", problems));
        }
    }

    private static void ownRow(StringBuilder md, ManyKeysDriver.OwnKeysRow row, String ratio) {
        md.append("| ").append(row.impl()).append(" | ").append(row.threads()).append(" | ")
                .append(String.format("%,.0f", row.throughput())).append(" | ").append(row.failures()).append(" | ");
        leftovers(md, row.impl(), row.leftovers());
        md.append(ratio).append(" |\n");
    }

    private static void contendedRow(StringBuilder md, ManyKeysDriver.ContendedRow row, String ratio) {
        md.append("| ").append(row.impl()).append(" | ").append(String.format("%.2f", row.seconds())).append(" | ")
                .append(String.format("%,.0f", row.throughput())).append(" | ").append(row.failures()).append(" | ")
                .append(row.violations()).append(" | ");
        leftovers(md, row.impl(), row.leftovers());
        md.append(ratio).append(" |\n");
    }

    private static void leftovers(StringBuilder md, String impl, ManyKeysDriver.Leftovers left) {
        md.append(left.lockKeys()).append(" | ").append(left.channels()).append(" | ")
                .append(impl.equals("raw") ? "-" : Integer.toString(left.localQueues())).append(" | ");
    }
}
