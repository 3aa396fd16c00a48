package dev.distlock.bench;

/**
 * The textbook Snowflake: one {@code synchronized} method, 41 bits of milliseconds since
 * 2020-01-01, 10 bits of worker, 12 bits of sequence; spins to the next millisecond when the
 * sequence runs out and throws if the clock goes back. The baseline for {@code SnowflakeGenerator}.
 */
final class NaiveSnowflake {

    private static final long EPOCH = 1_577_836_800_000L; // 2020-01-01T00:00:00Z
    private static final int SEQUENCE_BITS = 12;
    private static final int WORKER_BITS = 10;
    private static final long MAX_SEQUENCE = (1L << SEQUENCE_BITS) - 1;

    private final long worker;
    private long lastMillis = -1;
    private long sequence;

    NaiveSnowflake(long worker) {
        this.worker = worker;
    }

    synchronized long nextId() {
        long now = System.currentTimeMillis() - EPOCH;
        if (now < lastMillis) {
            throw new IllegalStateException("clock moved back " + (lastMillis - now) + " ms");
        }
        if (now == lastMillis) {
            sequence = (sequence + 1) & MAX_SEQUENCE;
            if (sequence == 0) {
                while (now <= lastMillis) {
                    now = System.currentTimeMillis() - EPOCH;
                }
            }
        } else {
            sequence = 0;
        }
        lastMillis = now;
        return (now << (WORKER_BITS + SEQUENCE_BITS)) | (worker << SEQUENCE_BITS) | sequence;
    }
}
