package dev.distlock.testkit.backend;

import dev.distlock.DistributedLocks;
import dev.distlock.testkit.ChildJvm;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * One JVM of a {@link BackendStorm}: {@code threads} threads each run {@code iterations} critical
 * sections under {@code locks.exclusive("counter")} on the backend a {@link BackendStorm.Connector}
 * makes (or under no lock at all), each section a read, a pause and a write of a counter in a file
 * all JVMs share. A lost update shows two holders.
 *
 * <p>Arguments: connector class ({@code none} for no lock), connection, where (table or root),
 * counter file, go file, threads, iterations, parent pid.
 */
public final class StormChild {

    public static void main(String[] args) throws Exception {
        String backend = args[0];
        String connection = args[1];
        String where = args[2];
        Path counter = Path.of(args[3]);
        Path go = Path.of(args[4]);
        int threads = Integer.parseInt(args[5]);
        int iterations = Integer.parseInt(args[6]);
        ChildJvm.haltWhenParentDies(Long.parseLong(args[7]), 3);
        ChildJvm.haltAfter(240_000, 4);

        DistributedLocks locks = backend.equals(BackendStorm.NO_LOCK) ? null : DistributedLocks.builder(
                ((BackendStorm.Connector) Class.forName(backend).getDeclaredConstructor().newInstance()).connect(connection, where))
                .build();
        if (locks != null) {
            locks.exclusive("warm-up").run(() -> { });
        }
        System.out.println("READY");
        while (!Files.exists(go)) {
            Thread.sleep(5);
        }
        AtomicInteger failures = new AtomicInteger();
        List<Thread> workers = new ArrayList<>();
        long started = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                for (int i = 0; i < iterations; i++) {
                    try {
                        if (locks == null) {
                            increment(counter);
                        } else {
                            locks.exclusive("counter").waitForever().run(() -> increment(counter));
                        }
                    } catch (RuntimeException e) {
                        failures.incrementAndGet();
                        e.printStackTrace();
                    }
                }
            });
            worker.start();
            workers.add(worker);
        }
        for (Thread worker : workers) {
            worker.join();
        }
        long elapsedMs = (System.nanoTime() - started) / 1_000_000;
        System.out.println("STORM-RESULT sections=" + (threads * iterations) + " failures=" + failures.get()
                + " elapsedMs=" + elapsedMs);
        if (locks != null) {
            locks.close();
        }
        System.exit(failures.get() == 0 ? 0 : 1);
    }

    /** Reads the counter, pauses 100 µs (the window a second holder needs), writes it plus one. */
    private static void increment(Path counter) {
        try (FileChannel file = FileChannel.open(counter, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer buffer = ByteBuffer.allocate(Long.BYTES);
            file.read(buffer, 0);
            long value = buffer.flip().getLong();
            LockSupport.parkNanos(100_000);
            file.write(ByteBuffer.allocate(Long.BYTES).putLong(0, value + 1), 0);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
