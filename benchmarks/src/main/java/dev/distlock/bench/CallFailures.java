package dev.distlock.bench;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Failed calls of one {@link ManyKeysDriver} run: counted, the first few printed so that a broken
 * run says why.
 */
final class CallFailures {

    private static final int PRINTED = 3;
    private final String run;
    private final AtomicLong count = new AtomicLong();

    CallFailures(String run) {
        this.run = run;
    }

    void record(String what) {
        if (count.incrementAndGet() <= PRINTED) {
            System.out.println(run + ": failure: " + what);
        }
    }

    void record(Exception e) {
        if (count.incrementAndGet() <= PRINTED) {
            System.out.println(run + ": failure: " + e);
            e.printStackTrace(System.out);
        }
    }

    long count() {
        return count.get();
    }
}
