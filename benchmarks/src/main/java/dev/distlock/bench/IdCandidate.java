package dev.distlock.bench;

/** One new generator under {@link IdLatencyDriver}'s test and what it cost its store. */
interface IdCandidate extends AutoCloseable {

    long nextId();

    /** Store round trips since the generator was made. */
    long storeRoundTrips();

    /** Waits until the store is not answering a round trip the generator started on its own (a prefetch). */
    void awaitStoreIdle() throws InterruptedException;

    /** SQL statements plus commits since the generator was made; -1 when the store is not SQL. */
    long sqlCalls();

    long rangeSize();

    /** Whether each thread's ids must rise (segment generators hand out ranges in order). */
    boolean increasingPerThread();

    /**
     * How many of the timed calls (per thread: ids, start and end nanoTime) waited for the
     * store, given the ids handed out untimed before them; see {@link IdLatencyDriver}.
     */
    long callsThatWaited(long[] untimedIds, long[][] ids, long[][] starts, long[][] ends);

    @Override
    void close();
}
