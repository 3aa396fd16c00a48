package dev.distlock.internal.id;

import dev.distlock.id.IdGenerationException;
import dev.distlock.id.IdGenerator;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Asks a generator for ids on a thread of its own in small batches with a pause between them, as a
 * busy node would without starving a two-core machine; keeps every id and notes when it issued
 * and when it first refused.
 */
final class PacedIssuer {

    private static final int BATCH = 50;

    private final IdGenerator generator;
    private final Thread thread;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong issued = new AtomicLong();
    private final AtomicLong issuedAfterRefusal = new AtomicLong();
    private final AtomicLong firstIssuedAt = new AtomicLong();
    private final AtomicLong lastIssuedAt = new AtomicLong();
    private volatile IdGenerationException firstRefusal;
    private volatile long firstRefusedAt;
    /** Written by the issuing thread only; read after {@link #stop()}. */
    private long[] ids = new long[1 << 16];

    PacedIssuer(IdGenerator generator) {
        this.generator = generator;
        this.thread = new Thread(this::run, "issuer-" + generator.name());
    }

    PacedIssuer start() {
        thread.start();
        return this;
    }

    private void run() {
        while (running.get()) {
            for (int i = 0; i < BATCH && running.get(); i++) {
                try {
                    long id = generator.nextId();
                    long now = System.nanoTime();
                    if (firstRefusal != null) {
                        issuedAfterRefusal.incrementAndGet();
                    }
                    keep(id);
                    firstIssuedAt.compareAndSet(0, now);
                    lastIssuedAt.set(now);
                    issued.incrementAndGet();
                } catch (IdGenerationException e) {
                    if (firstRefusal == null) {
                        firstRefusedAt = System.nanoTime();
                        firstRefusal = e;
                    }
                    break;
                }
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void keep(long id) {
        int count = (int) issued.get();
        if (count == ids.length) {
            ids = Arrays.copyOf(ids, count * 2);
        }
        ids[count] = id;
    }

    void awaitIds(long count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (issued.get() < count) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(generator.name() + " issued only " + issued.get() + " ids; first refusal: " + firstRefusal);
            }
            Thread.sleep(5);
        }
    }

    /** Stops issuing and waits for the thread; the generator stays open. */
    void stop() throws InterruptedException {
        running.set(false);
        thread.join(30_000);
    }

    /** Every id issued; call after {@link #stop()}. */
    long[] ids() {
        return Arrays.copyOf(ids, (int) issued.get());
    }

    long issuedAfterRefusal() {
        return issuedAfterRefusal.get();
    }

    long firstIssuedAt() {
        return firstIssuedAt.get();
    }

    long lastIssuedAt() {
        return lastIssuedAt.get();
    }

    IdGenerationException firstRefusal() {
        return firstRefusal;
    }

    long firstRefusedAt() {
        return firstRefusedAt;
    }
}
