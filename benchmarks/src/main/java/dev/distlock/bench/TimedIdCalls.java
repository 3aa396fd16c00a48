package dev.distlock.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@link IdLatencyDriver}'s timed-call loop: untimed ids first, then threads that time every
 * {@code nextId()} call of a candidate, and the check that no id repeats.
 */
final class TimedIdCalls {

    private TimedIdCalls() {
    }

    /** Result of one {@link #measure} call: round trips during the timed calls, range size when they began. */
    record Run(long timedRoundTrips, long rangeSize, long waitedCalls, long[] sortedNanos) {
    }

    /**
     * Takes {@code idsBefore} ids untimed on this thread, then has {@code threads} threads make
     * {@code calls} timed calls between them, and checks all the ids.
     */
    static Run measure(IdCandidate candidate, long idsBefore, int threads, long calls) throws Exception {
        // Row 0: the untimed ids, taken by this thread; rows 1..threads: the timed calls' ids.
        long[][] ids = new long[threads + 1][];
        ids[0] = new long[Math.toIntExact(idsBefore)];
        for (int i = 0; i < ids[0].length; i++) {
            ids[0][i] = candidate.nextId();
        }
        long roundTripsBefore = candidate.storeRoundTrips();
        long rangeSize = candidate.rangeSize();
        long[][] starts = new long[threads][];
        long[][] ends = new long[threads][];
        for (int t = 0; t < threads; t++) {
            int share = Math.toIntExact(calls / threads + (t < calls % threads ? 1 : 0));
            starts[t] = new long[share];
            ends[t] = new long[share];
            ids[t + 1] = new long[share];
        }
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long[] threadStarts = starts[t];
            long[] threadEnds = ends[t];
            long[] threadIds = ids[t + 1];
            Thread worker = new Thread(null, () -> {
                try {
                    ready.countDown();
                    go.await();
                    for (int i = 0; i < threadIds.length; i++) {
                        long start = System.nanoTime();
                        long id = candidate.nextId();
                        threadEnds[i] = System.nanoTime();
                        threadStarts[i] = start;
                        threadIds[i] = id;
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "bench-ids-" + t, IdLatencyDriver.STACK_BYTES);
            workers.add(worker);
            worker.start();
        }
        ready.await();
        go.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("nextId() failed in the id latency run", failure.get());
        }
        long timedRoundTrips = candidate.storeRoundTrips() - roundTripsBefore;
        checkIds(ids, candidate.increasingPerThread());
        long[][] timedIds = Arrays.copyOfRange(ids, 1, ids.length);
        long waitedCalls = candidate.callsThatWaited(ids[0], timedIds, starts, ends);

        long[] all = new long[Math.toIntExact(calls)];
        int offset = 0;
        for (int t = 0; t < threads; t++) {
            for (int i = 0; i < starts[t].length; i++) {
                all[offset++] = ends[t][i] - starts[t][i];
            }
        }
        Arrays.sort(all);
        return new Run(timedRoundTrips, rangeSize, waitedCalls, all);
    }

    /** Throws if an id repeats across all the arrays, or if one array's ids do not rise when they must. */
    static void checkIds(long[][] idsPerThread, boolean increasingPerThread) {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (long[] ids : idsPerThread) {
            for (int i = 0; i < ids.length; i++) {
                if (increasingPerThread && i > 0 && ids[i] <= ids[i - 1]) {
                    throw new IllegalStateException("ids of one thread did not rise: " + ids[i - 1] + " then " + ids[i]);
                }
                min = Math.min(min, ids[i]);
                max = Math.max(max, ids[i]);
            }
        }
        if (max - min >= Integer.MAX_VALUE) {
            throw new IllegalStateException("ids span " + min + ".." + max + ", too wide for the duplicate check");
        }
        BitSet seen = new BitSet(Math.toIntExact(max - min + 1));
        for (long[] ids : idsPerThread) {
            for (long id : ids) {
                int bit = (int) (id - min);
                if (seen.get(bit)) {
                    throw new IllegalStateException("id " + id + " was issued twice");
                }
                seen.set(bit);
            }
        }
    }
}
