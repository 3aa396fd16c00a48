package dev.distlock.internal.id;


import dev.distlock.spi.id.SnowflakeLayout;
import dev.distlock.spi.id.WorkerLease;
import dev.distlock.spi.id.WorkerLeases;
import dev.distlock.spi.id.WorkerSource;
import dev.distlock.id.IdGenerationException;
import dev.distlock.id.IdGenerator;
import dev.distlock.id.IdStrategy;
import dev.distlock.id.SnowflakeId;

import java.time.Clock;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Snowflake ids without a lock: the last issued (millisecond, sequence) pair lives in one
 * {@link AtomicLong}, and each id is one compare-and-set on it.
 *
 * <p>Clock going back by at most {@code maxBackwardMillis} is waited out: ids continue in the last
 * millisecond issued, and once its sequence is used up, the generator waits for the clock to pass
 * it. A larger step fails loudly with {@link IdGenerationException} rather than risk a duplicate.
 *
 * <p>No id is issued in a millisecond past what the worker id's store has recorded for its lease
 * ({@link WorkerLease#recordedUntilMillis()}), which is what a node taking the worker id after a
 * crash starts above. The heartbeat keeps that record ahead of the clock, so in the steady state this
 * is one more volatile read; after the clock steps forward past it, the id waits for the store to
 * record a later one ({@link WorkerSource#recordUpTo}).
 */
public final class SnowflakeGenerator implements IdGenerator, AutoCloseable {

    private final String name;
    private final SnowflakeLayout layout;
    private final Clock clock;
    private final long maxBackwardMillis;
    private final WorkerSource workers;
    private final long epochMillis;
    private final int sequenceBits;
    private final long sequenceMask;
    /** The last issued id's (elapsed millis << sequenceBits | sequence). */
    private final AtomicLong last = new AtomicLong();
    private volatile WorkerLease seenLease;
    /** {@code true} but in the twin of {@code LeasedIdsAfterAForwardClockStepTest}, which shows what the record prevents. */
    private final boolean staysWithinTheRecord;

    SnowflakeGenerator(String name, SnowflakeLayout layout, Clock clock, long maxBackwardMillis, WorkerSource workers) {
        this(name, layout, clock, maxBackwardMillis, workers, true);
    }

    private SnowflakeGenerator(String name, SnowflakeLayout layout, Clock clock, long maxBackwardMillis, WorkerSource workers,
                               boolean staysWithinTheRecord) {
        this.name = Objects.requireNonNull(name, "name");
        this.layout = Objects.requireNonNull(layout, "layout");
        this.clock = Objects.requireNonNull(clock, "clock");
        if (maxBackwardMillis < 0) {
            throw new IllegalArgumentException("max clock step back must be >= 0, was " + maxBackwardMillis);
        }
        this.maxBackwardMillis = maxBackwardMillis;
        this.workers = Objects.requireNonNull(workers, "workers");
        this.epochMillis = layout.epoch().toEpochMilli();
        this.sequenceBits = layout.sequenceBits();
        this.sequenceMask = layout.maxSequence();
        this.staysWithinTheRecord = staysWithinTheRecord;
    }

    /**
     * A generator with a fixed worker id and no clock floor: no Redis involved, and nothing keeps a
     * restart with the clock set back from issuing its ids again.
     */
    public static SnowflakeGenerator fixed(String name, SnowflakeLayout layout, Clock clock, long maxBackwardMillis, long workerId) {
        return new SnowflakeGenerator(name, layout, clock, maxBackwardMillis, new FixedWorker(name, layout, workerId));
    }

    /** A generator whose worker id is leased through {@code leases} (or kept with its floor, as {@code IdStore.fixedWorker} does). */
    public static SnowflakeGenerator leased(String name, SnowflakeLayout layout, Clock clock, long maxBackwardMillis,
                                            WorkerLeases leases) {
        return leased(name, layout, clock, maxBackwardMillis, leases, true);
    }

    /**
     * A leased generator that issues ids past what the store has recorded for its lease, as
     * generators did before the record bounded them: for the twin of
     * {@code LeasedIdsAfterAForwardClockStepTest} only, which shows that the test sees what the bound
     * prevents. Not a setting: no application may turn the bound off.
     */
    static SnowflakeGenerator leasedPastTheRecord(String name, SnowflakeLayout layout, Clock clock, long maxBackwardMillis,
                                                  WorkerLeases leases) {
        return leased(name, layout, clock, maxBackwardMillis, leases, false);
    }

    private static SnowflakeGenerator leased(String name, SnowflakeLayout layout, Clock clock, long maxBackwardMillis,
                                             WorkerLeases leases, boolean staysWithinTheRecord) {
        // The heartbeat thread reads the generator's last millisecond; publish it safely.
        AtomicReference<SnowflakeGenerator> self = new AtomicReference<>();
        WorkerSource source = leases.create(name, layout, clock, () -> {
            SnowflakeGenerator generator = self.get();
            return generator == null ? -1 : generator.lastIssuedMillis();
        });
        SnowflakeGenerator generator = new SnowflakeGenerator(name, layout, clock, maxBackwardMillis, source, staysWithinTheRecord);
        self.set(generator);
        return generator;
    }

    @Override
    public long nextId() {
        WorkerLease lease = workers.current();
        if (lease != seenLease) {
            adoptLease(lease);
        }
        while (true) {
            long previous = last.get();
            long previousMillis = previous >>> sequenceBits;
            long now = clock.millis() - epochMillis;
            long next;
            if (now > previousMillis) {
                next = now << sequenceBits;
            } else {
                long behind = previousMillis - now;
                if (behind > maxBackwardMillis) {
                    throw new IdGenerationException("Id generator '" + name + "': the clock moved back " + behind
                            + " ms, more than the " + maxBackwardMillis + " ms it waits out (distlock.id." + name
                            + ".max-clock-backward); no id is issued until the clock passes the last id's time.");
                }
                long sequence = (previous & sequenceMask) + 1;
                if (sequence > sequenceMask) {
                    awaitMillisAfter(previousMillis);
                    continue;
                }
                next = previous + 1;
            }
            if (last.compareAndSet(previous, next)) {
                long elapsed = next >>> sequenceBits;
                if (elapsed > layout.maxElapsedMillis()) {
                    throw new IdGenerationException("Id generator '" + name + "': the Snowflake layout ran out at "
                            + layout.exhaustedAt() + "; configure a later epoch or more time bits.");
                }
                if (elapsed > lease.recordedUntilMillis() && staysWithinTheRecord) {
                    awaitRecord(lease, elapsed);
                }
                lease.checkValid();
                return layout.compose(elapsed, lease.workerId, next & sequenceMask);
            }
        }
    }

    /** A new worker id may have been used before: never issue in or before its last holder's millisecond. */
    private void adoptLease(WorkerLease lease) {
        long floor = lease.previousHolderLastMillis;
        if (floor >= 0) {
            long floorState = (floor << sequenceBits) | sequenceMask;
            last.accumulateAndGet(floorState, Math::max);
        }
        seenLease = lease;
    }

    /** The clock stepped past the record: {@code elapsedMillis} is issued in only once the store has recorded it. */
    private void awaitRecord(WorkerLease lease, long elapsedMillis) {
        workers.recordUpTo(lease, elapsedMillis);
        lease.checkValid();
        if (elapsedMillis > lease.recordedUntilMillis()) {
            throw new IdGenerationException("Id generator '" + name + "': millisecond " + elapsedMillis + " of worker id "
                    + lease.workerId + " is past the last one its store has recorded (" + lease.recordedUntilMillis()
                    + "); no id is issued there until it is recorded.");
        }
    }

    /**
     * Waits for the clock to pass {@code elapsedMillis}. Gives up only on a clock read taken after the deadline: a
     * thread descheduled between reading the clock and looking at the deadline must read the clock again, since it
     * has most likely moved on meanwhile.
     */
    private void awaitMillisAfter(long elapsedMillis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxBackwardMillis + 2);
        while (true) {
            boolean late = System.nanoTime() - deadline > 0;
            if (clock.millis() - epochMillis > elapsedMillis) {
                return;
            }
            if (late) {
                throw new IdGenerationException("Id generator '" + name + "': the clock did not reach the next "
                        + "millisecond in time; no id was issued.");
            }
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new IdGenerationException("Id generator '" + name + "': interrupted while waiting for the clock");
            }
            LockSupport.parkNanos(50_000);
        }
    }

    /** Milliseconds since the epoch of the last id issued, for the worker lease's record. */
    long lastIssuedMillis() {
        return last.get() >>> sequenceBits;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public IdStrategy strategy() {
        return IdStrategy.SNOWFLAKE;
    }

    @Override
    public Optional<SnowflakeId> decode(long id) {
        return Optional.of(layout.decode(id));
    }

    public SnowflakeLayout layout() {
        return layout;
    }

    /** The worker id in use now; for diagnostics and tests. */
    public long workerId() {
        return workers.current().workerId;
    }

    @Override
    public void close() {
        workers.close();
    }
}
