package dev.distlock.example.shop;

import dev.distlock.Locked;
import jakarta.enterprise.concurrent.Asynchronous;
import jakarta.enterprise.concurrent.ManagedExecutorDefinition;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

/**
 * Jakarta Concurrency 3.1's virtual-thread managed executor (Jakarta EE 11, Payara Micro 7 on JDK
 * 21+; Payara Micro 6 runs the same executor on platform threads): a locked {@code @Asynchronous}
 * call takes the lock on a virtual thread. Each call answers the thread's kind and, in epoch
 * nanoseconds, when it entered and left its region: the test finds two regions of one key that
 * overlap across both servers (one machine, one clock).
 */
@ApplicationScoped
@ManagedExecutorDefinition(name = VirtualThreadChecks.EXECUTOR, virtual = true)
public class VirtualThreadChecks {

    static final String EXECUTOR = "java:app/concurrent/virtual";

    /** How long a region lasts: the window a second holder needs. */
    private static final long REGION_NANOS = 1_000_000;

    @Asynchronous(executor = EXECUTOR)
    @Locked("virtual:{key}")
    public CompletableFuture<String> locked(String key) {
        return Asynchronous.Result.complete(region());
    }

    /** The twin, without the lock. */
    @Asynchronous(executor = EXECUTOR)
    public CompletableFuture<String> unlocked(String key) {
        return Asynchronous.Result.complete(region());
    }

    /** {@code virtual|platform <entered> <left>}. */
    static String region() {
        long entered = epochNanos();
        LockSupport.parkNanos(REGION_NANOS);
        long left = epochNanos();
        return kind(Thread.currentThread()) + " " + entered + " " + left;
    }

    static long epochNanos() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /** The shop is built for Java 17: {@code Thread.isVirtual()} is asked for by name. */
    static String kind(Thread thread) {
        try {
            return Boolean.TRUE.equals(Thread.class.getMethod("isVirtual").invoke(thread)) ? "virtual" : "platform";
        } catch (ReflectiveOperationException beforeJava21) {
            return "platform";
        }
    }
}
