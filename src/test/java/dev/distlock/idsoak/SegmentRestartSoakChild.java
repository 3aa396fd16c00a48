package dev.distlock.idsoak;

import dev.distlock.internal.id.JdbcSegmentStore;
import dev.distlock.internal.id.SegmentIdGenerator;
import dev.distlock.spi.id.SegmentStore;
import dev.distlock.id.IdGenerationException;
import dev.distlock.testing.TestDatabases;
import dev.distlock.testkit.ChildJvm;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One JVM of the restart soak; started by {@link SegmentRestartSoakIT}, never by hand. Waits for
 * go, then round after round makes a segment generator as a node starting would, issues a random
 * number of ids on several threads, and ends it: most rounds with an orderly close (some while the
 * threads still call {@code nextId()}), some with a crash (the generator is dropped, never closed).
 * Each round's ids go to {@code <dir>/<jvm>-r<round>.ids} as 8-byte big-endian longs.
 *
 * <p>Its store counts what each generator fetched (leased or took as a spare) and kept, so that it
 * can tell how many ids each ending lost: fetched, less issued, less kept.
 *
 * <p>Arguments: JDBC URL, table, generator name, rounds, threads, most ids per round, seed,
 * directory, JVM name, deadline in ms, parent pid. Prints {@link #RESULT_PREFIX}{@code key=value ...}
 * and exits 0, 1 if an id failed or went down, 2 if it could not run, 3 past its deadline, 4 when its parent died.
 */
public final class SegmentRestartSoakChild {

    static final String RESULT_PREFIX = "RESTART-SOAK ";
    static final String READY_SUFFIX = ".ready";
    static final String GO_FILE = "go";
    static final String IDS_SUFFIX = ".ids";

    /** A round ends in a crash with this chance, in a close under running threads with the next. */
    private static final double CRASH_SHARE = 0.2;
    private static final double CLOSE_UNDER_LOAD_SHARE = 0.25;
    private static final long IN_FLIGHT_WAIT_MILLIS = 10_000;

    private static final int EXIT_OK = 0;
    private static final int EXIT_IDS_FAILED = 1;
    private static final int EXIT_COULD_NOT_RUN = 2;
    private static final int EXIT_DEADLINE = 3;
    private static final int EXIT_PARENT_GONE = 4;

    private SegmentRestartSoakChild() {
    }

    public static void main(String[] args) {
        int exit;
        try {
            if (args.length != 11) {
                throw new IllegalArgumentException("expected 11 arguments, got " + List.of(args));
            }
            ChildJvm.haltWhenParentDies(Long.parseLong(args[10]), EXIT_PARENT_GONE);
            ChildJvm.haltAfter(Long.parseLong(args[9]), EXIT_DEADLINE);
            Soak soak = new Soak(args[0], args[1], args[2], Integer.parseInt(args[4]), Integer.parseInt(args[5]),
                    new Random(Long.parseLong(args[6])), Path.of(args[7]), args[8]);
            exit = soak.run(Integer.parseInt(args[3]));
        } catch (Throwable e) {
            e.printStackTrace();
            exit = EXIT_COULD_NOT_RUN;
        }
        System.out.flush();
        System.exit(exit);
    }

    private static final class Soak {
        private final String url;
        private final String table;
        private final String name;
        private final int threads;
        private final int maxIdsPerRound;
        private final Random random;
        private final Path dir;
        private final String jvm;

        private long ids;
        private int closes;
        private int closesUnderLoad;
        private int crashes;
        /** The stores of crashed generators and the ids each issued: what they lost is counted at the end. */
        private final List<Map.Entry<CountingStore, Integer>> crashed = new ArrayList<>();
        private long lostAtCloses;
        private long sparesTaken;
        private final AtomicLong errors = new AtomicLong();
        private final AtomicLong nonIncreasing = new AtomicLong();
        private final AtomicReference<Throwable> firstError = new AtomicReference<>();

        Soak(String url, String table, String name, int threads, int maxIdsPerRound, Random random, Path dir, String jvm) {
            this.url = url;
            this.table = table;
            this.name = name;
            this.threads = threads;
            this.maxIdsPerRound = maxIdsPerRound;
            this.random = random;
            this.dir = dir;
            this.jvm = jvm;
        }

        int run(int rounds) throws Exception {
            Files.createFile(dir.resolve(jvm + READY_SUFFIX));
            while (!Files.exists(dir.resolve(GO_FILE))) {
                TimeUnit.MILLISECONDS.sleep(2);
            }
            long started = System.nanoTime();
            for (int round = 1; round <= rounds; round++) {
                round(round, round < rounds && random.nextDouble() < CRASH_SHARE);
            }
            long lostAtCrashes = 0;
            for (Map.Entry<CountingStore, Integer> crash : crashed) {
                // A crashed generator's fetch in flight went on; it has long ended, but make sure.
                crash.getKey().awaitNoneInFlight();
                lostAtCrashes += crash.getKey().fetched.get() - crash.getValue();
            }
            if (firstError.get() != null) {
                firstError.get().printStackTrace();
            }
            System.out.println(RESULT_PREFIX + "jvm=" + jvm + " ids=" + ids + " rounds=" + rounds + " closes=" + closes
                    + " closesUnderLoad=" + closesUnderLoad + " crashes=" + crashes + " lostAtCrashes=" + lostAtCrashes
                    + " lostAtCloses=" + lostAtCloses + " sparesTaken=" + sparesTaken + " errors=" + errors.get()
                    + " nonIncreasing=" + nonIncreasing.get()
                    + " elapsedMs=" + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
            return errors.get() == 0 && nonIncreasing.get() == 0 ? EXIT_OK : EXIT_IDS_FAILED;
        }

        private void round(int round, boolean crash) throws Exception {
            CountingStore store = new CountingStore(JdbcSegmentStore.creatingTableOnFirstLease(TestDatabases.dataSourceFor(url), table));
            SegmentIdGenerator generator = new SegmentIdGenerator(name, store, SegmentIdGenerator.Settings.defaults());
            boolean underLoad = !crash && random.nextDouble() < CLOSE_UNDER_LOAD_SHARE;
            int perThread = random.nextInt(maxIdsPerRound / threads + 1);
            long[][] issued = new long[threads][];
            CountDownLatch started = new CountDownLatch(threads);
            Thread[] workers = new Thread[threads];
            for (int t = 0; t < threads; t++) {
                int thread = t;
                workers[t] = new Thread(() -> issued[thread] = issue(generator, underLoad ? Integer.MAX_VALUE : perThread, started),
                        jvm + "-r" + round + "-t" + t);
                workers[t].start();
            }
            started.await();
            if (underLoad) {
                TimeUnit.MILLISECONDS.sleep(1 + random.nextInt(20));
                generator.close();
            }
            for (Thread worker : workers) {
                worker.join();
            }
            long[] all = Arrays.stream(issued).flatMapToLong(Arrays::stream).toArray();
            write(dir.resolve(jvm + "-r" + round + IDS_SUFFIX), all);
            ids += all.length;
            if (crash) {
                // Dropped, never closed: its thread stays idle until the JVM ends, as a crashed node's would be gone.
                crashes++;
                crashed.add(Map.entry(store, all.length));
            } else {
                generator.close();
                closes++;
                closesUnderLoad += underLoad ? 1 : 0;
                lostAtCloses += store.fetched.get() - all.length - store.kept.get();
            }
            sparesTaken += store.sparesTaken.get();
        }

        /** Ids until {@code count} or until the generator is closed under this thread. */
        private long[] issue(SegmentIdGenerator generator, int count, CountDownLatch started) {
            long[] mine = new long[Math.min(count, 1_024)];
            int issued = 0;
            long previous = Long.MIN_VALUE;
            started.countDown();
            try {
                while (issued < count) {
                    long id = generator.nextId();
                    if (id <= previous) {
                        nonIncreasing.incrementAndGet();
                    }
                    previous = id;
                    if (issued == mine.length) {
                        mine = Arrays.copyOf(mine, issued * 2);
                    }
                    mine[issued++] = id;
                    if (count == Integer.MAX_VALUE) {
                        // Until the close: a turn for the other threads and the closer, so that it lands within a range.
                        Thread.yield();
                    }
                }
            } catch (IdGenerationException e) {
                if (count != Integer.MAX_VALUE || !e.getMessage().contains("is closed")) {
                    errors.incrementAndGet();
                    firstError.compareAndSet(null, e);
                }
            } catch (RuntimeException e) {
                errors.incrementAndGet();
                firstError.compareAndSet(null, e);
            }
            return Arrays.copyOf(mine, issued);
        }
    }

    /** The real store, counting the ids of the ranges it fetched and kept. */
    private static final class CountingStore implements SegmentStore {
        private final SegmentStore store;
        final AtomicLong fetched = new AtomicLong();
        final AtomicLong kept = new AtomicLong();
        final AtomicLong sparesTaken = new AtomicLong();
        private final AtomicInteger inFlight = new AtomicInteger();

        CountingStore(SegmentStore store) {
            this.store = store;
        }

        @Override
        public Range lease(String name, long step) throws Exception {
            inFlight.incrementAndGet();
            try {
                Range range = store.lease(name, step);
                fetched.addAndGet(range.size());
                return range;
            } finally {
                inFlight.decrementAndGet();
            }
        }

        @Override
        public Optional<Range> takeSpare(String name, long above) throws Exception {
            inFlight.incrementAndGet();
            try {
                Optional<Range> spare = store.takeSpare(name, above);
                spare.ifPresent(range -> {
                    fetched.addAndGet(range.size());
                    sparesTaken.incrementAndGet();
                });
                return spare;
            } finally {
                inFlight.decrementAndGet();
            }
        }

        @Override
        public void keepSpares(String name, List<Range> spares) throws Exception {
            store.keepSpares(name, spares);
            kept.addAndGet(spares.stream().mapToLong(Range::size).sum());
        }

        void awaitNoneInFlight() throws InterruptedException {
            long deadline = System.currentTimeMillis() + IN_FLIGHT_WAIT_MILLIS;
            while (inFlight.get() > 0 && System.currentTimeMillis() < deadline) {
                TimeUnit.MILLISECONDS.sleep(1);
            }
        }
    }

    private static void write(Path file, long[] ids) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(ids.length * Long.BYTES);
        buffer.asLongBuffer().put(ids);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        }
    }

    static List<String> arguments(String url, String table, String name, int rounds, int threads, int maxIdsPerRound, long seed,
                                  Path dir, String jvm, long deadlineMillis) {
        return new ArrayList<>(List.of(url, table, name, Integer.toString(rounds), Integer.toString(threads),
                Integer.toString(maxIdsPerRound), Long.toString(seed), dir.toString(), jvm, Long.toString(deadlineMillis),
                Long.toString(ProcessHandle.current().pid())));
    }
}
