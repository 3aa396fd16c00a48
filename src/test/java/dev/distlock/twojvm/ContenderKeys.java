package dev.distlock.twojvm;

/**
 * The Redis keys a run of contenders shares, all under the run's prefix so that runs never meet
 * and the run can be cleaned up by pattern.
 */
final class ContenderKeys {

    /** The lock key, as given to {@code DistributedLocks.exclusive}; the library adds the prefix. */
    static final String LOCK = "counter";

    private ContenderKeys() {
    }

    /** The shared counter, incremented by GET and SET. */
    static String counter(String prefix) {
        return prefix + ":data:counter";
    }

    /** Holds the token of whoever is in the critical section. */
    static String inside(String prefix) {
        return prefix + ":data:inside";
    }

    /** Counts the JVMs that are connected and waiting for {@link #go}. */
    static String ready(String prefix) {
        return prefix + ":ctl:ready";
    }

    /** Set by the parent once every JVM is ready: the start barrier. */
    static String go(String prefix) {
        return prefix + ":ctl:go";
    }

    /** Matches every key of the run, the lock's included. */
    static String all(String prefix) {
        return prefix + ":*";
    }
}
