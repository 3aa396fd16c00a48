package dev.distlock.testing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Runs a generator on threads started together, and checks runs of ids. */
public final class IdRuns {

    public interface IdSource {
        long next() throws Exception;
    }

    public static long[][] onThreads(int threads, int perThread, IdSource source) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CyclicBarrier start = new CyclicBarrier(threads);
            List<Future<long[]>> runs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                runs.add(pool.submit(() -> {
                    long[] ids = new long[perThread];
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        ids[i] = source.next();
                    }
                    return ids;
                }));
            }
            long[][] result = new long[threads][];
            for (int t = 0; t < threads; t++) {
                result[t] = runs.get(t).get();
            }
            return result;
        } finally {
            pool.shutdownNow();
        }
    }

    public static void assertStrictlyIncreasing(long[] ids) {
        for (int i = 1; i < ids.length; i++) {
            if (ids[i] <= ids[i - 1]) {
                throw new AssertionError("id " + i + " (" + ids[i] + ") is not above the one before (" + ids[i - 1] + ")");
            }
        }
    }

    public static long[] concat(long[]... parts) {
        return Arrays.stream(parts).flatMapToLong(Arrays::stream).toArray();
    }

    public static long duplicates(long[] ids) {
        long[] sorted = ids.clone();
        Arrays.sort(sorted);
        long duplicates = 0;
        for (int i = 1; i < sorted.length; i++) {
            if (sorted[i] == sorted[i - 1]) {
                duplicates++;
            }
        }
        return duplicates;
    }

    private IdRuns() {
    }
}
