package dev.distlock.internal.id;

import dev.distlock.id.DailySerial;
import dev.distlock.id.Ids;
import dev.distlock.id.IdGenerationException;
import dev.distlock.spi.id.DayCounter;
import dev.distlock.spi.id.SegmentStore;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;

/**
 * Date + the day's serial, counted by a {@link DayCounter} (Redis's) and made durable by ranges
 * leased from a {@link SegmentStore} row per generator and day ({@code invoice@2026-11-24}).
 *
 * <p>The counter hands out numbers only from a range the database leased to it for that day, so
 * every number ever issued is at or below the row's high-water mark. A count the counter cannot
 * trust (lost, restored from an older copy, found on another server) is never counted on; the next
 * number then comes from a fresh range above the high-water mark. Numbers can be skipped, never
 * repeated.
 *
 * <p>The day is the counter's: it reads its store's clock, so every node turns to the next day at
 * the same instant whatever its own clock says. The node passes its zone's offsets around now (and
 * the next transition), so daylight-saving changes are honoured.
 *
 * <p>When few numbers are left, one node (a claim in the counter picks it) leases the next range in
 * the background; a node that finds the range used up waits for the claimant or refills itself.
 * All database access runs on this generator's own thread, never in the caller's transaction.
 */
public final class DailySerialGenerator implements Ids.Serials {

    /** Longest generator name: the store's row name adds '@' and the ISO date. */
    public static final int MAX_NAME_LENGTH = 89;
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1," + MAX_NAME_LENGTH + "}");
    private static final long CLAIM_MILLIS = 3_000;
    private static final long WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    /**
     * @param zone    whose midnight starts a new day
     * @param format  how a number is written
     * @param step    how many numbers one database lease takes
     * @param timeout how long {@code next()} waits for Redis, a refill or the database
     */
    public record Settings(ZoneId zone, SerialFormat format, long step, Duration timeout) {
        public Settings {
            Objects.requireNonNull(zone, "zone");
            Objects.requireNonNull(format, "format");
            if (step < 1 || step > 1_000_000) {
                throw new IllegalArgumentException("step must be between 1 and 1000000, was " + step);
            }
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout must be positive, was " + timeout);
            }
        }

        public static Settings defaults() {
            return new Settings(java.time.ZoneOffset.UTC, SerialFormat.parse(SerialFormat.DEFAULT), 100, Duration.ofSeconds(10));
        }
    }

    private final String name;
    private final DayCounter counter;
    private final SegmentStore store;
    private final Settings settings;
    private final Clock clock;
    private final ExecutorService io;

    public DailySerialGenerator(String name, DayCounter counter, SegmentStore store, Settings settings) {
        this(name, counter, store, settings, Clock.systemUTC());
    }

    /**
     * @param clock this node's clock: only to pick the zone's offsets around now, never the day,
     *              which comes from the counter's clock
     */
    public DailySerialGenerator(String name, DayCounter counter, SegmentStore store, Settings settings, Clock clock) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("a daily serial generator's name has 1 to " + MAX_NAME_LENGTH
                    + " letters, digits, '.', '_' or '-', was '" + name + "'");
        }
        this.name = name;
        this.counter = Objects.requireNonNull(counter, "counter");
        this.store = Objects.requireNonNull(store, "store");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.io = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "distlock-serial-" + name);
            thread.setDaemon(true);
            return thread;
        });
    }

    @Override
    public DailySerial next() {
        long deadline = System.nanoTime() + settings.timeout().toNanos();
        while (true) {
            DayCounter.Taken taken = counter.take(offsets(), Math.max(1, settings.step() / 5), CLAIM_MILLIS);
            long day = taken.day();
            long serial = taken.serial();
            if (serial > 0) {
                if (taken.next() == DayCounter.Next.PREFETCH) {
                    refillInBackground(day, taken.server());
                }
                LocalDate date = LocalDate.ofEpochDay(day);
                return new DailySerial(date, serial, settings.format().format(date, serial));
            }
            if (taken.next() == DayCounter.Next.REFILL) {
                awaitRefill(day, taken.server(), deadline);
            } else if (System.nanoTime() - deadline < 0) {
                LockSupport.parkNanos(WAIT_NANOS);
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new IdGenerationException("Daily serial '" + name + "': no range for " + LocalDate.ofEpochDay(day) + " within "
                        + settings.timeout().toMillis() + " ms (another node claimed the refill and has not installed it). No number was issued.");
            }
        }
    }

    private void awaitRefill(long day, String server, long deadline) {
        Future<Boolean> refill;
        try {
            refill = io.submit(() -> refill(day, server));
        } catch (RejectedExecutionException closed) {
            throw new IdGenerationException("Daily serial '" + name + "' is closed (the application is shutting down)", closed);
        }
        try {
            refill.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw new IdGenerationException("Daily serial '" + name + "' needs a new range for " + LocalDate.ofEpochDay(day)
                    + " and cannot lease one: " + e.getCause() + ". No number was issued.", e.getCause());
        } catch (TimeoutException e) {
            throw new IdGenerationException("Daily serial '" + name + "': leasing a range for " + LocalDate.ofEpochDay(day)
                    + " took longer than " + settings.timeout().toMillis() + " ms. No number was issued.", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IdGenerationException("Daily serial '" + name + "': interrupted while waiting for a range", e);
        }
    }

    private void refillInBackground(long day, String server) {
        try {
            io.execute(() -> {
                try {
                    refill(day, server);
                } catch (Exception | Error e) {
                    // The claim runs out and whoever finds the range used up refills; nothing was issued from it.
                }
            });
        } catch (RejectedExecutionException closed) {
            // shutting down: the claim runs out
        }
    }

    /** Leases the day's next range from the store and installs it in the counter; false if the counter refused it (a gap). */
    private boolean refill(long day, String server) throws Exception {
        SegmentStore.Range range = store.lease(name + "@" + LocalDate.ofEpochDay(day), settings.step());
        return counter.install(offsets(), day, range, server);
    }

    /** The zone's offset an hour ago, its next transition after that and the offset after it. */
    private DayCounter.Offsets offsets() {
        ZoneRules rules = settings.zone().getRules();
        Instant from = clock.instant().minus(Duration.ofHours(1));
        ZoneOffsetTransition transition = rules.nextTransition(from);
        int before = rules.getOffset(from).getTotalSeconds();
        return transition == null ? new DayCounter.Offsets(before, Long.MAX_VALUE, before)
                : new DayCounter.Offsets(before, transition.getInstant().getEpochSecond(), transition.getOffsetAfter().getTotalSeconds());
    }

    @Override
    public String name() {
        return name;
    }

    public Settings settings() {
        return settings;
    }

    @Override
    public void close() {
        io.shutdownNow();
    }
}
