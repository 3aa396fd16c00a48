package dev.distlock.spi.id;

import dev.distlock.id.SnowflakeId;

import java.time.Duration;
import java.time.Instant;

/**
 * How a Snowflake id splits its 63 value bits: time since the epoch in milliseconds, worker id,
 * sequence within the millisecond. The default 41/10/12 lasts 69 years, 1,024 workers, 4,096 ids
 * per millisecond per worker.
 */
public record SnowflakeLayout(Instant epoch, int timeBits, int workerBits, int sequenceBits) {

    /** 2020-01-01T00:00:00Z: ids stay small for decades. */
    public static final Instant DEFAULT_EPOCH = Instant.parse("2020-01-01T00:00:00Z");

    public static final SnowflakeLayout DEFAULT = new SnowflakeLayout(DEFAULT_EPOCH, 41, 10, 12);

    public SnowflakeLayout {
        if (epoch == null) {
            throw new IllegalArgumentException("epoch is required");
        }
        if (timeBits < 1 || workerBits < 0 || sequenceBits < 1) {
            throw new IllegalArgumentException("time-bits and sequence-bits must be >= 1 and worker-bits >= 0, were "
                    + timeBits + "/" + workerBits + "/" + sequenceBits);
        }
        if (timeBits + workerBits + sequenceBits != 63) {
            throw new IllegalArgumentException("time-bits + worker-bits + sequence-bits must be 63 (the sign bit stays 0), were "
                    + timeBits + " + " + workerBits + " + " + sequenceBits + " = " + (timeBits + workerBits + sequenceBits));
        }
    }

    public long maxWorker() {
        return (1L << workerBits) - 1;
    }

    public long maxSequence() {
        return (1L << sequenceBits) - 1;
    }

    public long maxElapsedMillis() {
        return (1L << timeBits) - 1;
    }

    /** The first instant whose ids no longer fit: the layout has run out then. */
    public Instant exhaustedAt() {
        return epoch.plus(Duration.ofMillis(maxElapsedMillis()).plusMillis(1));
    }

    public long compose(long elapsedMillis, long worker, long sequence) {
        return (elapsedMillis << (workerBits + sequenceBits)) | (worker << sequenceBits) | sequence;
    }

    public SnowflakeId decode(long id) {
        if (id < 0) {
            throw new IllegalArgumentException("Snowflake ids are positive, was " + id);
        }
        long sequence = id & maxSequence();
        long worker = (id >>> sequenceBits) & maxWorker();
        long elapsed = id >>> (workerBits + sequenceBits);
        return new SnowflakeId(epoch.plusMillis(elapsed), worker, sequence);
    }
}
