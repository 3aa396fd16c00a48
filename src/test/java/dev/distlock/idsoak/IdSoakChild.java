package dev.distlock.idsoak;

import dev.distlock.testkit.ChildJvm;

import dev.distlock.internal.id.JdbcSegmentStore;
import dev.distlock.redis.RedisWorkerLeases;
import dev.distlock.internal.id.SegmentIdGenerator;
import dev.distlock.internal.id.SnowflakeGenerator;
import dev.distlock.spi.id.SnowflakeLayout;
import dev.distlock.id.IdGenerator;
import dev.distlock.id.IdStrategy;
import org.h2.jdbcx.JdbcDataSource;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One JVM of the id soak; started by {@link IdSoakRun}, never by hand. Builds one generator as a
 * node would, signals ready, waits for go, then each thread takes its share of ids, checks that
 * they increase, and writes them to {@code <dir>/<jvm>-<thread>.ids} as 8-byte big-endian longs.
 *
 * <p>Arguments: strategy (SNOWFLAKE or SEGMENT), store (Redis URL or JDBC URL), generator name,
 * key prefix (SNOWFLAKE) or table (SEGMENT), threads, ids per thread, directory, JVM name,
 * deadline in ms, parent pid.
 *
 * <p>Prints {@link #RESULT_PREFIX}{@code jvm=… ids=… errors=… nonIncreasing=… elapsedMs=… worker=…}
 * and exits 0, 1 if any id failed or went down, 2 if it could not run, 3 past its deadline, 4 when its parent died.
 */
public final class IdSoakChild {

    static final String RESULT_PREFIX = "SOAK-RESULT ";
    static final String READY_SUFFIX = ".ready";
    static final String GO_FILE = "go";
    static final String IDS_SUFFIX = ".ids";

    private static final int EXIT_OK = 0;
    private static final int EXIT_IDS_FAILED = 1;
    private static final int EXIT_COULD_NOT_RUN = 2;
    private static final int EXIT_DEADLINE = 3;
    private static final int EXIT_PARENT_GONE = 4;
    private static final long WORKER_LEASE_MILLIS = 10_000;

    private IdSoakChild() {
    }

    public static void main(String[] args) {
        int exit;
        try {
            if (args.length != 10) {
                throw new IllegalArgumentException("expected 10 arguments, got " + List.of(args));
            }
            ChildJvm.haltWhenParentDies(Long.parseLong(args[9]), EXIT_PARENT_GONE);
            ChildJvm.haltAfter(Long.parseLong(args[8]), EXIT_DEADLINE);
            exit = run(IdStrategy.valueOf(args[0]), args[1], args[2], args[3], Integer.parseInt(args[4]),
                    Integer.parseInt(args[5]), Path.of(args[6]), args[7]);
        } catch (Throwable e) {
            e.printStackTrace();
            exit = EXIT_COULD_NOT_RUN;
        }
        System.out.flush();
        System.exit(exit);
    }

    private static int run(IdStrategy strategy, String store, String name, String keyOrTable, int threads, int perThread,
                           Path dir, String jvm) throws Exception {
        RedissonClient redis = null;
        IdGenerator generator;
        if (strategy == IdStrategy.SNOWFLAKE) {
            RedissonClient client = connect(store);
            redis = client;
            generator = SnowflakeGenerator.leased(name, SnowflakeLayout.DEFAULT, Clock.systemUTC(), 10,
                    RedisWorkerLeases.factory(() -> client, keyOrTable, WORKER_LEASE_MILLIS));
        } else {
            JdbcDataSource dataSource = new JdbcDataSource();
            dataSource.setURL(store);
            JdbcSegmentStore segments = new JdbcSegmentStore(dataSource, keyOrTable);
            segments.createTableIfAbsent();
            generator = new SegmentIdGenerator(name, segments, SegmentIdGenerator.Settings.defaults());
        }
        try {
            return issue(generator, threads, perThread, dir, jvm);
        } finally {
            ((AutoCloseable) generator).close();
            if (redis != null) {
                redis.shutdown();
            }
        }
    }

    private static int issue(IdGenerator generator, int threads, int perThread, Path dir, String jvm) throws Exception {
        long[][] ids = new long[threads][perThread];
        int[] issued = new int[threads];
        AtomicLong errors = new AtomicLong();
        AtomicLong nonIncreasing = new AtomicLong();
        AtomicReference<Throwable> firstError = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(threads);
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int thread = t;
            workers[t] = new Thread(() -> {
                try {
                    long[] mine = ids[thread];
                    long previous = Long.MIN_VALUE;
                    for (int i = 0; i < perThread; i++) {
                        long id = generator.nextId();
                        if (id <= previous) {
                            nonIncreasing.incrementAndGet();
                        }
                        previous = id;
                        mine[i] = id;
                        issued[thread] = i + 1;
                    }
                } catch (Throwable e) {
                    errors.incrementAndGet();
                    firstError.compareAndSet(null, e);
                } finally {
                    done.countDown();
                }
            }, jvm + "-t" + t);
        }

        Files.createFile(dir.resolve(jvm + READY_SUFFIX));
        Path go = dir.resolve(GO_FILE);
        while (!Files.exists(go)) {
            TimeUnit.MILLISECONDS.sleep(2);
        }
        long started = System.nanoTime();
        for (Thread worker : workers) {
            worker.start();
        }
        done.await();
        long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

        long total = 0;
        for (int t = 0; t < threads; t++) {
            write(dir.resolve(jvm + "-t" + t + IDS_SUFFIX), ids[t], issued[t]);
            total += issued[t];
        }
        if (firstError.get() != null) {
            firstError.get().printStackTrace();
        }
        String worker = generator instanceof SnowflakeGenerator snowflake ? Long.toString(snowflake.workerId()) : "-";
        System.out.println(RESULT_PREFIX + "jvm=" + jvm + " ids=" + total + " errors=" + errors.get()
                + " nonIncreasing=" + nonIncreasing.get() + " elapsedMs=" + elapsedMillis + " worker=" + worker);
        return errors.get() == 0 && nonIncreasing.get() == 0 ? EXIT_OK : EXIT_IDS_FAILED;
    }

    private static void write(Path file, long[] ids, int count) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(count * Long.BYTES);
        buffer.asLongBuffer().put(ids, 0, count);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        }
    }

    private static RedissonClient connect(String url) {
        Config config = new Config();
        config.setThreads(2).setNettyThreads(2);
        config.useSingleServer().setAddress(url).setConnectionMinimumIdleSize(1).setConnectionPoolSize(2)
                .setSubscriptionConnectionMinimumIdleSize(0);
        return Redisson.create(config);
    }
}
