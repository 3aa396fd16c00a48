package dev.distlock.idsoak;

import dev.distlock.internal.id.DailySerialGenerator;
import dev.distlock.internal.id.JdbcSegmentStore;
import dev.distlock.internal.id.SerialFormat;
import dev.distlock.redis.RedisDayCounter;
import dev.distlock.id.DailySerial;
import dev.distlock.testkit.ChildJvm;
import org.h2.jdbcx.JdbcDataSource;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.io.DataOutputStream;
import java.io.BufferedOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One JVM of the daily serial soak; started by {@link DailySerialSoakIT}, never by hand. Builds
 * a generator as a node would, with its own clock set {@code skew} away from the machine's, signals
 * ready, waits for go, then each thread takes numbers until the run's time is up and writes, per
 * number, the day, the serial and the wall-clock millis before and after the call to
 * {@code <dir>/<jvm>-<thread>.serials}. A call that fails (Redis restarting) is counted and retried.
 *
 * <p>Arguments: Redis URL, JDBC URL, table, name, (unused), clock skew millis, step, threads, run
 * millis, directory, JVM name, deadline millis, parent pid. The go file holds the zone's offset in
 * seconds.
 */
public final class DailySerialSoakChild {

    static final String READY_SUFFIX = ".ready";
    static final String GO_FILE = "go";
    static final String SERIALS_SUFFIX = ".serials";
    static final String RESULT_PREFIX = "SERIAL-RESULT ";

    private DailySerialSoakChild() {
    }

    public static void main(String[] args) {
        int exit;
        try {
            if (args.length != 13) {
                throw new IllegalArgumentException("expected 13 arguments, got " + List.of(args));
            }
            ChildJvm.haltWhenParentDies(Long.parseLong(args[12]), 4);
            ChildJvm.haltAfter(Long.parseLong(args[11]), 3);
            exit = run(args);
        } catch (Throwable e) {
            e.printStackTrace();
            exit = 2;
        }
        System.out.flush();
        System.exit(exit);
    }

    private static int run(String[] args) throws Exception {
        Config config = new Config();
        config.setThreads(2).setNettyThreads(2);
        config.useSingleServer().setAddress(args[0]).setConnectionMinimumIdleSize(1).setConnectionPoolSize(4)
                .setSubscriptionConnectionMinimumIdleSize(0).setTimeout(1_000).setRetryAttempts(1);
        RedissonClient redis = Redisson.create(config);
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL(args[1]);
        Clock skewed = Clock.offset(Clock.systemUTC(), Duration.ofMillis(Long.parseLong(args[5])));
        int threads = Integer.parseInt(args[7]);
        long runMillis = Long.parseLong(args[8]);
        Path dir = Path.of(args[9]);
        String jvm = args[10];
        AtomicLong taken = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        redis.getKeys().count(); // connected before "ready"
        Files.createFile(dir.resolve(jvm + READY_SUFFIX));
        Path go = dir.resolve(GO_FILE);
        while (!Files.exists(go)) {
            TimeUnit.MILLISECONDS.sleep(2);
        }
        // The zone comes with "go": the parent picks it so that midnight falls where the run needs it.
        DailySerialGenerator.Settings settings = new DailySerialGenerator.Settings(
                ZoneOffset.ofTotalSeconds(Integer.parseInt(Files.readString(go).strip())), SerialFormat.parse(SerialFormat.DEFAULT),
                Long.parseLong(args[6]), Duration.ofSeconds(5));
        try (DailySerialGenerator generator = new DailySerialGenerator(args[3], new RedisDayCounter(args[3], () -> redis, "soak"),
                new JdbcSegmentStore(dataSource, args[2]), settings, skewed)) {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(runMillis);
            Thread[] workers = new Thread[threads];
            Throwable[] firstFailure = new Throwable[1];
            for (int t = 0; t < threads; t++) {
                Path file = dir.resolve(jvm + "-t" + t + SERIALS_SUFFIX);
                workers[t] = new Thread(() -> {
                    try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file)))) {
                        while (System.nanoTime() - end < 0) {
                            long before = System.currentTimeMillis();
                            DailySerial serial;
                            try {
                                serial = generator.next();
                            } catch (RuntimeException e) {
                                if (failed.incrementAndGet() == 1) {
                                    firstFailure[0] = e;
                                }
                                TimeUnit.MILLISECONDS.sleep(20);
                                continue;
                            }
                            long after = System.currentTimeMillis();
                            out.writeLong(serial.day().toEpochDay());
                            out.writeLong(serial.serial());
                            out.writeLong(before);
                            out.writeLong(after);
                            taken.incrementAndGet();
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, jvm + "-t" + t);
                workers[t].start();
            }
            for (Thread worker : workers) {
                worker.join();
            }
            if (firstFailure[0] != null) {
                System.out.println("first failed call: " + firstFailure[0]);
            }
        } finally {
            redis.shutdown();
        }
        System.out.println(RESULT_PREFIX + "jvm=" + jvm + " taken=" + taken.get() + " failedCalls=" + failed.get());
        return 0;
    }
}
